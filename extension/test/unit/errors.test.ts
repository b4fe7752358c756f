import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { buttonLabel, errorNotice, maxButtons } from '../../src/errors';
import type { ErrorAction, ErrorData } from '../../src/protocol';
import { errorDataOf } from '../../src/review';

/**
 * The error replies the language server sends, one per kind: written by
 * the Go test TestErrorDataOfEveryKind, so these tests read what the
 * server really sends.
 */
const samples = JSON.parse(
  readFileSync(path.resolve(__dirname, '../../../test/unit/fixtures/error-data.json'), 'utf8'),
) as Record<string, { code: number; message: string; data: ErrorData }>;

/** The notice for a kind's sample, read from a reply as the language client rejects with it. */
function noticeOf(kind: string) {
  const s = samples[kind];
  assert.ok(s, `no sample of kind ${kind}`);
  const reply = Object.assign(new Error(s.message), { code: s.code, data: s.data });
  return errorNotice(reply.message, errorDataOf(reply));
}

test('errorNotice shows the hint and a button per fix', async (t) => {
  const cases: { kind: string; severity: string; hint: RegExp; buttons: string[] }[] = [
    // The message names the address; the hint does not again.
    { kind: 'model-unreachable', severity: 'error', hint: /— Start the model server, or point icm at one that runs\.$/, buttons: ['Start Ollama', 'Set Server Address'] },
    { kind: 'model-missing', severity: 'error', hint: /— Use qwen3:8b, which the server has, or pull "qwen3:4b" onto it\.$/, buttons: ['Use qwen3:8b', 'Pull qwen3:4b'] },
    { kind: 'verify-failed', severity: 'warning', hint: /— Fix the output and approve it, or approve it as it is\.$/, buttons: ['Open objectives.md', 'Approve Anyway'] },
    { kind: 'edited-output', severity: 'warning', hint: /— Approve the edit, or run again and overwrite it \(the edited version is kept in history\/versions\/\)\.$/, buttons: ['Approve my edit', 'Compare', 'Overwrite'] },
    { kind: 'contract-invalid', severity: 'error', hint: /— Fix the errors in the stage's contract\.$/, buttons: ['Open CONTEXT.md', 'Show Problems'] },
    { kind: 'stale', severity: 'warning', hint: /— Run it again, or approve it as it is\.$/, buttons: ['Run Stage', 'Approve Anyway'] },
    { kind: 'config-invalid', severity: 'error', hint: /or the model setting\.$/, buttons: ['Open config.toml', 'Choose Model'] },
    { kind: 'locked', severity: 'warning', hint: /wait for that run to end, or stop it/i, buttons: [] },
    { kind: 'untrusted', severity: 'warning', hint: /and trust it if you expect all of it\.$/, buttons: ['Trust This Workspace'] },
    { kind: 'cancelled', severity: 'info', hint: /running again resumes it\.$/, buttons: [] },
    { kind: 'failed', severity: 'error', hint: /no space left on device — The disk is full: free some space, then try again\.$/, buttons: [] },
    { kind: 'internal', severity: 'error', hint: /— This is a bug in icm, .*report it, .* at https:\/\/github\.com\/icm-tool\/icm\/issues\.$/, buttons: [] },
  ];
  for (const c of cases) {
    await t.test(c.kind, () => {
      const n = noticeOf(c.kind);
      assert.equal(n.severity, c.severity);
      const m = samples[c.kind].message;
      assert.ok(n.text.startsWith(m.charAt(0).toUpperCase() + m.slice(1)), n.text);
      assert.doesNotMatch(n.text, /^ICM:/, 'one prefix: VS Code names the source of a notice');
      assert.match(n.text, c.hint);
      assert.deepEqual(n.buttons.map((b) => b.label), c.buttons);
      // No command line in what the editor shows.
      assert.doesNotMatch(n.text, /--force|--model|`icm /);
    });
  }
});

test('every kind the server sends gets a notice with the hint', () => {
  for (const [kind, s] of Object.entries(samples)) {
    const n = noticeOf(kind);
    if (s.data.hint) {
      assert.ok(n.text.toLowerCase().includes(s.data.hint.slice(1, 20).toLowerCase()), `${kind}: ${n.text}`);
    }
    assert.ok(n.buttons.length <= maxButtons, kind);
  }
});

test('buttons carry the fix they perform', () => {
  const n = noticeOf('verify-failed');
  assert.equal(n.buttons[0].action.location?.uri, 'file:///w/course-research/pipeline/01-scope/output/objectives.md');
  assert.equal(n.buttons[0].action.location?.range.start.line, 2, 'line 3 of the finding, 0-based');
  assert.deepEqual(n.buttons[1].action, { id: 'approve-anyway', title: 'Approve anyway', stage: '01-scope' });
  const [use, pull] = noticeOf('model-missing').buttons.map((b) => b.action);
  assert.deepEqual([use.id, use.model], ['choose-model', 'qwen3:8b'], 'the likely model first');
  assert.equal(pull.model, 'qwen3:4b');
  assert.equal(pull.url, 'http://127.0.0.1:11434');
});

test('buttonLabel leaves out what the extension cannot do', async (t) => {
  const cases: [ErrorAction, string | undefined][] = [
    [{ id: 'from-a-newer-server', title: 'Frobnicate' }, undefined],
    [{ id: 'start-server', title: 'Start', url: 'http://gpu:8000/v1' }, undefined],
    [{ id: 'start-server', title: 'Start', command: 'vllm serve m' }, 'Start Server'],
    [{ id: 'approve', title: 'Approve' }, undefined],
    [{ id: 'choose-model', title: 'Choose a model', setting: 'model' }, 'Choose Model'],
    [{ id: 'open-file', title: 'Open', location: { uri: 'file:///w/a%20b/notes.md', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } } }, 'Open notes.md'],
  ];
  for (const [a, want] of cases) {
    await t.test(`${a.id} ${want ?? 'left out'}`, () => assert.equal(buttonLabel(a), want));
  }
});

test('errorNotice without error data is the message alone', () => {
  assert.deepEqual(errorNotice('the icm language server is not running', undefined), {
    severity: 'error',
    text: 'The icm language server is not running',
    buttons: [],
  });
});

test('errorNotice shows at most three buttons, without repeats', () => {
  const data: ErrorData = {
    kind: 'stale',
    actions: [
      { id: 'run-stage', title: '', stage: 's' },
      { id: 'run-stage', title: '', stage: 's' },
      { id: 'approve-anyway', title: '', stage: 's' },
      { id: 'show-diff', title: '', stage: 's' },
      { id: 'run-check', title: '' },
    ],
  };
  assert.deepEqual(errorNotice('m', data).buttons.map((b) => b.label), ['Run Stage', 'Approve Anyway', 'Compare']);
});
