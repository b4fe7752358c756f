import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TrustInfo } from '../../src/protocol';
import { nothingToTrust, partLine, trustQuestion, trustedNotice } from '../../src/trustPresent';

const info = (over: Partial<TrustInfo> = {}): TrustInfo => ({
  workspace: '/src/cloned',
  state: 'untrusted',
  allowed: false,
  summary: 'not trusted: it names 1 tool server command and 1 server address',
  hash: 'abc',
  parts: [
    { kind: 'command', verb: 'run', value: 'icm mcp search --searxng http://localhost:8090', where: 'config.toml [mcp.servers.search-server]' },
    { kind: 'server', verb: 'contact', value: 'http://localhost:8090', where: 'config.toml [mcp.servers.search-server] args' },
  ],
  changes: [],
  ...over,
});

test('the question lists every part with where it is named', () => {
  const q = trustQuestion(info());
  assert.match(q.message, /^Trust the ICM workspace cloned\? It names 2 things to run, contact or read\.$/);
  assert.match(q.detail, /run icm mcp search --searxng http:\/\/localhost:8090 \(from config\.toml \[mcp\.servers\.search-server\]\)/);
  assert.match(q.detail, /contact http:\/\/localhost:8090 \(from config\.toml \[mcp\.servers\.search-server\] args\)/);
  assert.match(q.detail, /A change to any of it untrusts the workspace again\./);
});

test('the question says what changed since it was trusted', () => {
  const q = trustQuestion(info({ state: 'changed', changes: [{ kind: 'command', verb: 'run', value: 'sh -c evil', where: 'config.toml [mcp.servers.x]', was: 'sh -c fine' }] }));
  assert.match(q.detail, /^It changed since it was trusted:\n• config\.toml \[mcp\.servers\.x\]: sh -c fine → sh -c evil/);
});

test('a changed script a granted command runs is named, and each command says what it pins', () => {
  const script = {
    kind: 'script',
    verb: 'run',
    value: 'sh ./build.sh',
    where: 'pipeline/02-b/CONTEXT.md ## Script',
    pins: ['sh is found on PATH: pinned by its name', 'pins pipeline/02-b/build.sh by its content (sha256 0123456789ab)'],
  };
  const q = trustQuestion(info({ state: 'changed', parts: [script], changes: [{ ...script, files: ['pipeline/02-b/build.sh changed since you trusted it'] }] }));
  assert.match(q.detail, /^It changed since it was trusted:\n• pipeline\/02-b\/build\.sh changed since you trusted it \(pipeline\/02-b\/CONTEXT\.md ## Script\)/);
  assert.match(q.detail, /• run sh \.\/build\.sh \(from pipeline\/02-b\/CONTEXT\.md ## Script\)\n {4}– sh is found on PATH: pinned by its name\n {4}– pins pipeline\/02-b\/build\.sh by its content/);
});

test('a multi-line script reads on one line', () => {
  assert.equal(partLine({ kind: 'script', verb: 'run', value: 'make\nmake install', where: 'pipeline/02-b/CONTEXT.md ## Script' }), 'run make ⏎ make install (from pipeline/02-b/CONTEXT.md ## Script)');
});

test('the notice after trusting lists what was trusted and says Run is enabled', () => {
  const n = trustedNotice(info({ state: 'trusted', allowed: true }));
  assert.match(n, /^Trusted cloned; icm may now run icm mcp search .*; contact http:\/\/localhost:8090 .*\. Run is enabled\.$/);
});

test('nothing to trust', () => {
  assert.match(nothingToTrust(info({ state: 'not-needed', allowed: true, parts: [] })) ?? '', /needs no trust/);
  assert.match(nothingToTrust(info({ state: 'trusted', allowed: true, by: 'icm trust on 2026-12-01 10:00' })) ?? '', /already trusted \(icm trust on/);
  assert.equal(nothingToTrust(info()), undefined);
  assert.equal(nothingToTrust(info({ state: 'changed' })), undefined);
});
