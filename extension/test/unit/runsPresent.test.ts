import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunEntry } from '../../src/protocol';
import { runView } from '../../src/runsPresent';

const now = new Date('2026-12-01T18:00:00');
const run = (error?: string): RunEntry => ({
  id: 'r1',
  start: '2026-12-01T17:18:25',
  durationMs: 309,
  promptTokens: 0,
  outputTokens: 0,
  finished: true,
  stages: [{ kind: 'stage', text: '01-scope  failed · 300ms', stage: '01-scope', error }],
});

test('runView', async (t) => {
  await t.test('a failed run says so in words, not by its icon alone', () => {
    const v = runView(run('the server answered 500 Internal Server Error'), now);
    assert.match(v.description, /^failed · 309 ms/);
    assert.equal(v.icon.id, 'error');
    assert.match(v.tooltip, /01-scope failed: the server answered 500 Internal Server Error/);
  });
  await t.test('a good run', () => {
    const v = runView(run(), now);
    assert.equal(v.label, '17:18 · 01-scope');
    assert.match(v.description, /^309 ms · 0 tokens in \/ 0 out$/);
    assert.doesNotMatch(v.tooltip, /failed/);
  });
  await t.test('a run a coding agent handed in names the agent, not the 0 tokens no model read', () => {
    const r = run();
    r.stages = [{ kind: 'stage', text: '01-scope  done  0s  handed in by agent:claude-code over MCP', stage: '01-scope', agent: 'agent:claude-code' }];
    assert.match(runView(r, now).description, /^309 ms · handed in by agent:claude-code over MCP$/);
    // A run where icm's model ran too counts its tokens.
    r.stages.push({ kind: 'stage', text: '02-research  done', stage: '02-research' });
    r.promptTokens = 1200;
    assert.match(runView(r, now).description, /^309 ms · 1,200 tokens in \/ 0 out$/);
  });
});
