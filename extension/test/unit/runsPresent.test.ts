import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { RunEntry, RunNode, RunStatus, WorkspaceStatus } from '../../src/protocol';
import { runNodeView, runsKey, runView } from '../../src/runsPresent';

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
    // A row is the run's word (and, going, how long so far): its figures
    // are in the tooltip, or at 1280 px beside the secondary side bar the
    // row was cut (issue 34).
    { name: 'done', r: run({ status: 'done' }), word: /^done$/, icon: 'history' },
    { name: 'failed', r: run({ status: 'failed' }, 'the server answered 500'), word: /^failed$/, icon: 'error' },
    { name: 'cancelled', r: run({ status: 'cancelled' }), word: /^cancelled$/, icon: 'stop-circle' },
    // Refused before any work: no figures, which would read as a run.
    { name: 'refused', r: run({ status: 'refused', promptTokens: 0, outputTokens: 0, durationMs: 9 }, 'the server has no model "qwen3.5:9"'), word: /^refused$/, icon: 'circle-slash' },
    { name: 'running', r: run({ status: 'running', finished: false, start: '2026-12-01T17:59:00' }), word: /^running · 1 min$/, icon: 'sync~spin' },
    { name: 'stopped', r: run({ status: 'stopped', finished: false }), word: /^stopped$/, icon: 'debug-disconnect' },
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
    assert.match(runView(r, now).tooltip, /60 ms · handed in by agent:claude-code over MCP · 1 of 1 tool call failed/);
  });
  await t.test('each outcome\'s word is the vocabulary\'s', () => {
    for (const o of table.outcome) {
      const v = runView(run({ status: o.status as RunStatus, finished: o.status !== 'running' && o.status !== 'stopped' }, 'boom'), now, o.means);
      if (o.status === 'done') {
        assert.equal(v.description, 'done');
        continue;
      }
      assert.match(v.description, new RegExp(`^${o.status}( · |$)`), o.status);
      assert.ok(v.tooltip.includes(o.means), `the tooltip of a ${o.status} run does not say what it means: ${v.tooltip}`);
    }
  });
});

test('runView: a run of several stages names the first and the last, so the row fits', () => {
  const stages: RunNode[] = ['01-scope', '02-research', '03-outline', '04-draft'].map((st) => ({ kind: 'stage', text: `${st}  done  1 s`, stage: st }));
  const v = runView(run({ stages }), now);
  assert.equal(v.label, '17:18 · 01-scope…04-draft');
  assert.match(v.tooltip, /01-scope, 02-research, 03-outline, 04-draft/);
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

test('runNodeView: a run\'s stage row is its outcome and time, its tokens in the tooltip, so it reads whole in a narrow side bar', () => {
  // At 1280 px beside the secondary side bar a stage's row under its run
  // has about 217 px: "03-outline done · 242 ms · 1,211 tokens in / 35
  // out" was cut (issue 34).
  const v = runNodeView({ kind: 'stage', text: '03-outline  done  242 ms  1,211 tokens in / 35 out', stage: '03-outline' });
  assert.equal(v.label, '03-outline');
  assert.equal(v.description, 'done · 242 ms');
  assert.match(v.tooltip, /done · 242 ms · 1,211 tokens in \/ 35 out/);
  assert.deepEqual(v.icon, { id: 'layers' });
  // A stage with fewer figures keeps them all.
  assert.equal(runNodeView({ kind: 'stage', text: '01-scope  refused', stage: '01-scope' }).description, 'refused');
  // Its failed tool calls, in the tooltip now, colour its icon as they colour the run's.
  const tools = runNodeView({ kind: 'stage', text: '02-research  done  3.1 s  1,204 tokens in / 80 out  1 of 1 tool call failed', stage: '02-research' });
  assert.equal(tools.description, 'done · 3.1 s');
  assert.match(tools.tooltip, /1 of 1 tool call failed/);
  assert.deepEqual(tools.icon, { id: 'layers', color: 'charts.orange' });
});

test('runNodeView: a stage whose outputs from the run were approved says who approved and why, as icm history does', () => {
  const approval = 'approved by Ann Lee, past failing checks: the figures are from the notes (p. 2)';
  const v = runNodeView({ kind: 'stage', text: '02-research  done  3.1 s  1,204 tokens in / 80 out', stage: '02-research', approval });
  // The server's words, escaped for Markdown, on a line of their own.
  assert.ok(v.tooltip.split('\n\n').includes('approved by Ann Lee, past failing checks: the figures are from the notes \\(p. 2\\)'), v.tooltip);
  // The row still reads whole in a narrow side bar.
  assert.equal(v.description, 'done · 3.1 s');
  // A stage not approved says nothing of approval.
  assert.doesNotMatch(runNodeView({ kind: 'stage', text: '02-research  done  3.1 s', stage: '02-research' }).tooltip, /approved/);
});

test('runsKey: the Runs view reads the runs again when a stage is approved, so its approval shows at once', () => {
  const ws = (status: 'awaiting-review' | 'approved'): WorkspaceStatus =>
    ({
      workspace: '/w',
      name: 'w',
      running: null,
      stages: [{ name: '01-scope', status, lastRun: '2026-12-01T17:18:25Z' }],
      trust: {},
    }) as unknown as WorkspaceStatus;
  assert.notEqual(runsKey([ws('awaiting-review')]), runsKey([ws('approved')]));
  assert.equal(runsKey([ws('approved')]), runsKey([ws('approved')]), 'the same state reads nothing again');
});
