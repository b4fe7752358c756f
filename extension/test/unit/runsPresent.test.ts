import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEntry, RunNode, RunStatus } from '../../src/protocol';
import { runNodeView, runView } from '../../src/runsPresent';

const now = new Date('2026-12-01T18:00:00');

/** The vocabulary's run outcomes (docs/vocabulary.md). */
const table = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../server/internal/human/testdata/table.json'), 'utf8')) as {
  outcome: { status: string; means: string }[];
};
const run = (over: Partial<RunEntry> = {}, error?: string): RunEntry => ({
  id: 'r1',
  start: '2026-12-01T17:18:25',
  durationMs: 12_300,
  promptTokens: 4472,
  outputTokens: 312,
  finished: true,
  status: 'done',
  duration: '12 s',
  tokens: '4,472 tokens in / 312 out',
  stages: [{ kind: 'stage', text: '01-scope  failed  12 s', stage: '01-scope', error }],
  ...over,
});

test('runView: every way a run ends has its own word and icon', async (t) => {
  const seen = new Map<string, string>();
  const cases: { name: string; r: RunEntry; word: RegExp; icon: string }[] = [
    { name: 'done', r: run({ status: 'done' }), word: /^12 s · 4,472 tokens in \/ 312 out$/, icon: 'history' },
    { name: 'failed', r: run({ status: 'failed' }, 'the server answered 500'), word: /^failed · 12 s · 4,472 tokens in/, icon: 'error' },
    { name: 'cancelled', r: run({ status: 'cancelled' }), word: /^cancelled · 12 s/, icon: 'stop-circle' },
    // Refused before any work: no figures, which would read as a run.
    { name: 'refused', r: run({ status: 'refused', promptTokens: 0, outputTokens: 0, durationMs: 9 }, 'the server has no model "qwen3.5:9"'), word: /^refused · 01-scope: the server has no model "qwen3\.5:9"$/, icon: 'circle-slash' },
    { name: 'running', r: run({ status: 'running', finished: false, start: '2026-12-01T17:59:00' }), word: /^running · 1 min · 4,472 tokens in \/ 312 out so far$/, icon: 'sync~spin' },
    { name: 'stopped', r: run({ status: 'stopped', finished: false }), word: /^stopped · 12 s/, icon: 'debug-disconnect' },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const v = runView(c.r, now);
      assert.match(v.description, c.word);
      assert.equal(v.icon.id, c.icon);
      assert.equal(seen.get(c.icon), undefined, `${c.name} shares its icon with ${seen.get(c.icon)}`);
      seen.set(c.icon, c.name);
    });
  }
  await t.test('the figures are the server\'s words', () => {
    // durationMs is cut to whole milliseconds; the words round the
    // duration itself. Before, the view wrote "59 ms" where the server
    // and icm history said "60 ms".
    const r = run({ durationMs: 59, duration: '60 ms', tokens: 'handed in by agent:claude-code over MCP', tools: '1 of 1 tool call failed' });
    assert.equal(runView(r, now).description, '60 ms · handed in by agent:claude-code over MCP · 1 of 1 tool call failed');
  });
  await t.test('each outcome\'s word is the vocabulary\'s', () => {
    for (const o of table.outcome) {
      const v = runView(run({ status: o.status as RunStatus, finished: o.status !== 'running' && o.status !== 'stopped' }, 'boom'), now, o.means);
      if (o.status === 'done') {
        assert.doesNotMatch(v.description, /done/, 'a run that ended as asked needs no word');
        continue;
      }
      assert.match(v.description, new RegExp(`^${o.status} · `), o.status);
      assert.ok(v.tooltip.includes(o.means), `the tooltip of a ${o.status} run does not say what it means: ${v.tooltip}`);
    }
  });
});

test('runView: an item run again, and its note, are labelled', () => {
  const v = runView(run({ status: 'done', item: 2, itemStage: '04-draft', note: 'shorter, please' }), now);
  assert.equal(v.label, '17:18 · 04-draft item 2 again');
  assert.match(v.tooltip, /Your note: shorter, please/);
});

test('runNodeView: a tool call opens, and its error is told once', () => {
  const n: RunNode = {
    kind: 'tool',
    text: 'tool search-server_search  84 B  12 ms  error: search failed: SearXNG at http://127.0.0.1:8888 is not reachable',
    stage: '02-research',
    call: 1,
    error: 'search failed: SearXNG at http://127.0.0.1:8888 is not reachable',
    args: { query: 'ollama' },
    uri: 'icm-call:/w/r1/02-research/0/tool-1.md',
  };
  const v = runNodeView(n);
  assert.equal(v.label, 'tool search-server_search');
  assert.equal(v.description, '84 B · 12 ms');
  assert.equal(v.tooltip.split('is not reachable').length - 1, 1, `the error is told more than once:\n${v.tooltip}`);
  assert.match(v.tooltip, /Select to read its arguments, its result and its error/);
});
