import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorNotice } from '../../src/errors';
import { runNotice } from '../../src/notices';
import type { RunFinished, StageStatus } from '../../src/protocol';
import { rerunQuestion } from '../../src/rerun';

const base: RunFinished = { workspace: '/w', stage: '01-scope', runId: 'r1', ok: true, cancelled: false, outcome: 'done' };
const approved = { status: 'approved' as const, label: 'approved', icon: 'pass-filled', tone: 'ok' };

test('runNotice', async (t) => {
  const cases: { name: string; ev: Partial<RunFinished>; severity: string; text: RegExp; actions: string[] }[] = [
    { name: 'awaits review', ev: {}, severity: 'info', text: /^01-scope finished and awaits review\.$/, actions: ['Open Output', 'Approve', 'Show Run'] },
    {
      name: 'tool calls failed',
      ev: { stage: '02-research', toolCalls: 5, toolErrors: 2, tools: '2 of 5 tool calls failed' },
      severity: 'warning',
      text: /^02-research finished and awaits review, but 2 of 5 tool calls failed\.$/,
      actions: ['Open Output', 'Approve', 'Show Run'],
    },
    {
      // The server's words, as the Runs view and the Pipeline view have
      // them; before, the notice said "every tool call failed (1 of 1)".
      name: 'the one tool call failed',
      ev: { stage: '02-research', toolCalls: 1, toolErrors: 1, tools: '1 of 1 tool call failed' },
      severity: 'warning',
      text: /^02-research finished and awaits review, but 1 of 1 tool call failed\.$/,
      actions: ['Open Output', 'Approve', 'Show Run'],
    },
    {
      name: 'Verify failures name the first finding',
      ev: { stage: '02-research', verifyFailed: true, findings: ['notes.md:3: https://x.example was not returned or read by any tool call of this run (sources)'] },
      severity: 'warning',
      text: /but its output failed Verify checks: notes\.md:3: https:\/\/x\.example was not returned/,
      actions: ['Open Output', 'Approve', 'Show Run'],
    },
    {
      name: 'a failed rubric says its line, and the Review Gate ends the notice',
      ev: {
        stage: '03-plan',
        rubricFailed: true,
        rubric: '3 of 4 rubric checks pass: missing section "Risks"',
        reviewGate: ['Every bed has a crop.', 'No plant is named twice;'],
      },
      severity: 'warning',
      text: /^03-plan finished and awaits review, but its rubric: 3 of 4 rubric checks pass: missing section "Risks"\. Review Gate: Every bed has a crop; No plant is named twice\.$/,
      actions: ['Open Output', 'Approve', 'Show Run'],
    },
    {
      name: 'a rubric that passes is no problem',
      ev: { rubric: '4 of 4 rubric checks pass' },
      severity: 'info',
      text: /^01-scope finished and awaits review\.$/,
      actions: ['Open Output', 'Approve', 'Show Run'],
    },
    {
      name: 'the same output keeps the approval',
      ev: { sameOutput: true, face: approved },
      severity: 'info',
      text: /ran again and wrote the same output: it is still approved/,
      actions: ['Open Output', 'Show Run'],
    },
    {
      name: 'Run All with nothing to run names where it stands, offers no Approve',
      ev: { stage: '', nothingRan: true, message: 'every stage is approved' },
      severity: 'info',
      text: /^Nothing ran: every stage is approved$/,
      actions: [],
    },
    {
      name: 'refused connection: the hint, start and retry',
      ev: {
        ok: false,
        outcome: 'refused',
        message: 'no model server at http://127.0.0.1:11434',
        face: { ...approved, detail: 'last re-run failed: no model server at http://127.0.0.1:11434', tone: 'warning' },
        error: {
          kind: 'model-unreachable',
          hint: 'start Ollama, or set icm.ollama.host',
          actions: [{ id: 'start-server', title: 'Start the model server', command: 'ollama serve', url: 'http://127.0.0.1:11434' }, { id: 'set-server', title: 'Set the model server' }],
        },
      },
      severity: 'error',
      // The reason is told once; what stands is the approval. The run
      // did no work: refused, as the Runs view says (before: "failed").
      text: /^01-scope run refused: no model server at http:\/\/127\.0\.0\.1:11434 — Start Ollama, or set icm\.ollama\.host\. 01-scope is still approved\.$/,
      actions: ['Start Ollama', 'Retry', 'Set Server Address'],
    },
    {
      name: 'missing model: pull',
      ev: {
        ok: false,
        outcome: 'refused',
        message: 'model "qwen3.5:9" is not installed — did you mean "qwen3.5:9b"?',
        error: {
          kind: 'model-missing',
          hint: 'use "qwen3.5:9b"',
          actions: [{ id: 'choose-model', title: 'Choose a model', model: 'qwen3.5:9b' }, { id: 'pull-model', title: 'Pull qwen3.5:9', model: 'qwen3.5:9' }],
        },
      },
      severity: 'error',
      text: /did you mean "qwen3\.5:9b"\?/,
      actions: ['Use qwen3.5:9b', 'Pull qwen3.5:9', 'Retry'],
    },
    {
      name: 'an edited output is not a failure of the stage',
      ev: {
        ok: false,
        outcome: 'refused',
        message: 'notes.md was edited since the last run and not approved',
        error: {
          kind: 'edited-output',
          actions: [
            { id: 'approve', title: 'Approve', stage: '01-scope' },
            { id: 'compare-model', title: "Compare with the model's version", stage: '01-scope' },
            { id: 'run-anyway', title: 'Run and overwrite', stage: '01-scope' },
          ],
        },
      },
      // Nothing failed: the run waits for the person's call.
      severity: 'warning',
      text: /^01-scope was not run again: notes\.md was edited/,
      actions: ['Approve my edit', 'Compare', 'Overwrite'],
    },
    {
      // The server asks once about outputs committed with the workspace;
      // its two answers are the buttons, in its own words.
      name: 'committed outputs: the question and its two answers',
      ev: {
        ok: false,
        outcome: 'refused',
        message: 'outputs committed with the workspace, not made by icm: 01-scope: pipeline/01-scope/output/objectives.md; keep them as approved, or regenerate them',
        error: {
          kind: 'edited-output',
          hint: 'keep them, and each of those stages is approved as it is',
          actions: [
            { id: 'adopt', title: 'Keep them as approved', stage: '01-scope' },
            { id: 'regenerate', title: 'Regenerate them', stage: '01-scope' },
          ],
        },
      },
      severity: 'warning',
      text: /^Outputs committed with the workspace, not made by icm: .*keep them as approved, or regenerate them — Keep them/,
      actions: ['Keep them as approved', 'Regenerate them'],
    },
    {
      name: 'a manual step says what it is and offers the approval',
      ev: { stage: '01-index', message: 'manual step: its outputs are files a model cannot write (search.db); do it, then approve the stage', manual: '1. Build the index.', outputs: [] },
      severity: 'info',
      text: /^01-index is a manual step: its outputs are files a model cannot write \(search\.db\); do it, then approve the stage\.$/,
      actions: ['Approve', 'Show Run'],
    },
    {
      // The gate summary, line by line in the server's words (the same
      // lines the Pipeline view's tooltip and the output's lens show);
      // before, the notice said only what was missing and proposed.
      name: 'the gate summary: what is missing, proposed, lacked, warned of',
      ev: {
        stage: '01-map',
        reviewGate: ['Every endpoint is listed.'],
        gate: [
          { status: 'fail', word: 'FAIL', text: '2 of 3 outputs written; still missing: output/risks.md; run the stage again for the rest', action: 'run' },
          { status: 'warn', word: 'WARN', text: 'It proposes 1 change outside output/, applied only when you approve', items: ['_config/endpoint-map.md'] },
          { status: 'warn', word: 'WARN', text: 'icm read the contract with 1 warning (the stage ran all the same)', items: ['stages/01-map/CONTEXT.md:14: min-words needs a positive number'] },
        ],
      },
      severity: 'warning',
      text: /^01-map finished and awaits review\. FAIL 2 of 3 outputs written; still missing: output\/risks\.md; run the stage again for the rest\. WARN It proposes 1 change outside output\/, applied only when you approve: _config\/endpoint-map\.md\. WARN icm read the contract with 1 warning \(the stage ran all the same\): stages\/01-map\/CONTEXT\.md:14: min-words needs a positive number\. Review Gate: Every endpoint is listed\.$/,
      actions: ['Open Output', 'Approve', 'Show Run'],
    },
    {
      name: 'the gate summary after the problems of the run',
      ev: { stage: '02-research', tools: '1 of 2 tool calls failed', gate: [{ status: 'warn', word: 'WARN', text: 'icm read the contract with 1 warning (the stage ran all the same)', items: ['a.md:3: x'] }] },
      severity: 'warning',
      text: /^02-research finished and awaits review, but 1 of 2 tool calls failed\. WARN icm read the contract with 1 warning \(the stage ran all the same\): a\.md:3: x\.$/,
      actions: ['Open Output', 'Approve', 'Show Run'],
    },
    { name: 'cancelled, approved', ev: { cancelled: true, ok: false, outcome: 'cancelled', face: approved }, severity: 'info', text: /^01-scope run cancelled; it is still approved\.$/, actions: [] },
    {
      name: 'cancelled, awaiting review',
      ev: { cancelled: true, ok: false, outcome: 'cancelled', face: { status: 'awaiting-review', label: 'awaiting review', icon: 'eye', tone: 'info' } },
      severity: 'info',
      text: /^01-scope run cancelled; its last output is kept for review\.$/,
      actions: [],
    },
    {
      // Before: "its last output and approval are kept" for a stage that had neither.
      name: 'cancelled before anything was written',
      ev: { stage: '04-draft', cancelled: true, ok: false, outcome: 'cancelled', face: { status: 'pending', label: 'pending', icon: 'circle-large-outline', tone: 'info' } },
      severity: 'info',
      text: /^04-draft run cancelled; it has no output yet\. The items that finished are kept for the next run\.$/,
      actions: [],
    },
    {
      // Before: "01-scope is has errors", with the error said twice.
      name: 'a stage that cannot run says so once, in a sentence',
      ev: {
        ok: false,
        outcome: 'refused',
        message: 'stage 01-scope cannot run: references/missing.md does not exist',
        face: { status: 'invalid', label: 'has errors', detail: 'cannot run: references/missing.md does not exist', icon: 'circle-slash', tone: 'error' },
        error: { kind: 'contract-invalid', actions: [] },
      },
      severity: 'error',
      text: /^01-scope cannot run: references\/missing\.md does not exist\.$/,
      actions: ['Show Logs'],
    },
    {
      name: 'a server that stopped mid-run: told once, Start then Retry',
      ev: {
        stage: '04-draft',
        ok: false,
        outcome: 'failed',
        message: 'the model server at http://127.0.0.1:11434 stopped answering during 04-draft; 2 of 5 items are kept',
        face: { status: 'failed', label: 'failed', icon: 'error', tone: 'error' },
        error: {
          kind: 'model-unreachable',
          hint: 'start the model server, or point icm at one that runs',
          actions: [{ id: 'start-server', title: 'Start the model server', command: 'ollama serve', url: 'http://127.0.0.1:11434' }, { id: 'set-server', title: 'Set the model server' }],
        },
      },
      severity: 'error',
      text: /^The model server at http:\/\/127\.0\.0\.1:11434 stopped answering during 04-draft; 2 of 5 items are kept — Start the model server, or point icm at one that runs\.$/,
      actions: ['Start Ollama', 'Retry', 'Set Server Address'],
    },
    { name: 'a failure without data shows the logs', ev: { ok: false, outcome: 'failed', message: 'boom' }, severity: 'error', text: /^01-scope run failed: boom$/, actions: ['Show Logs'] },
    {
      name: 'a first run that fails tells its error once, without the stage twice',
      ev: {
        ok: false,
        outcome: 'failed',
        message: 'stage 01-scope: the server answered 500 Internal Server Error: out of memory',
        face: { status: 'failed', label: 'failed', detail: 'last run failed: stage 01-scope: the server answered 500 Internal Server Error: out of memory', icon: 'error', tone: 'error' },
      },
      severity: 'error',
      text: /^01-scope run failed: the server answered 500 Internal Server Error: out of memory$/,
      actions: ['Show Logs'],
    },
    {
      name: 'a failed re-run of a stale stage keeps the reason it is stale, not the error again',
      ev: {
        ok: false,
        outcome: 'refused',
        message: 'stage 01-scope: model "qwen3.5:9" is not installed — did you mean "qwen3.5:9b"?',
        face: {
          status: 'stale',
          label: 'stale',
          detail: 'the model changed since the last run · last re-run failed: stage 01-scope: model "qwen3.5:9" is not installed — did you mean "qwen3.5:9b"?',
          icon: 'history',
          tone: 'warning',
        },
      },
      severity: 'error',
      text: /^01-scope run refused: model "qwen3\.5:9" is not installed — did you mean "qwen3\.5:9b"\? 01-scope is stale · the model changed since the last run\.$/,
      actions: ['Show Logs'],
    },
  ];
  await t.test('Run Next with a stage awaiting review offers to review it, in the editor\'s words', () => {
    const n = runNotice(
      { ...base, stage: '', nothingRan: true, message: '01-scope awaiting review: read pipeline/01-scope/output/, edit if needed, then `icm approve 01-scope`' },
      { stage: '01-scope', action: 'approve', message: '' },
    );
    assert.equal(n.text, 'Nothing ran: 01-scope awaits your review first. Read its output, edit it if you like, then approve it.');
    assert.deepEqual(
      n.actions.map((a) => a.title),
      ['Open Output', 'Approve'],
    );
  });
  for (const c of cases) {
    await t.test(c.name, () => {
      const n = runNotice({ ...base, ...c.ev });
      assert.equal(n.severity, c.severity);
      assert.match(n.text, c.text);
      assert.deepEqual(
        n.actions.map((a) => a.title),
        c.actions,
      );
    });
  }
});

function stage(name: string, status: StageStatus['status'], downstream: string[] = []): StageStatus {
  return { name, status, face: { status, label: status, icon: '', tone: 'info' }, contract: `/w/pipeline/${name}/CONTEXT.md`, downstream };
}

test('rerunQuestion', async (t) => {
  const all = [stage('01-scope', 'approved', ['02-research', '03-outline', '04-draft']), stage('02-research', 'approved'), stage('03-outline', 'awaiting-review'), stage('04-draft', 'pending')];
  await t.test('an approved stage names the stages that go stale', () => {
    const q = rerunQuestion(all[0], all);
    assert.equal(q?.text, '01-scope is approved. Run it again?');
    assert.match(q?.detail ?? '', /02-research and 03-outline go stale \(02-research is approved now\)\./);
    const both = [stage('01-scope', 'approved', ['02-research']), stage('02-research', 'approved')];
    assert.match(rerunQuestion(both[0], both)?.detail ?? '', /and 02-research goes stale \(it is approved now\)\./);
  });
  await t.test('nothing to ask for a stage that is not approved', () => assert.equal(rerunQuestion(all[3], all), undefined));
  await t.test('an approved last stage', () => assert.match(rerunQuestion(stage('04-draft', 'approved'), all)?.detail ?? '', /needs approving again/));
  await t.test('stages that never ran do not go stale', () => {
    const fresh = [stage('01-scope', 'approved', ['02-research', '03-outline']), stage('02-research', 'awaiting-review'), stage('03-outline', 'pending')];
    const detail = rerunQuestion(fresh[0], fresh)?.detail ?? '';
    assert.match(detail, /and 02-research goes stale\./);
    assert.doesNotMatch(detail, /03-outline/);
    const none = [stage('01-scope', 'approved', ['02-research']), stage('02-research', 'pending')];
    assert.doesNotMatch(rerunQuestion(none[0], none)?.detail ?? '', /stale/);
  });
});

test('a lost model server: one notice, the same buttons before and during a run, the address once', () => {
  // What the server sends for a server that does not answer where no
  // Ollama is installed, before a run and during one (issue 34: before,
  // the address was told twice, and mid-run Start Ollama came first with
  // no Ollama to start).
  const url = 'http://127.0.0.1:4242';
  const error = {
    kind: 'model-unreachable',
    hint: 'start the server you run there, or set another address; or install Ollama, or try the demo',
    actions: [
      { id: 'set-server', title: 'Set the model server', url, setting: 'ollamaHost' },
      { id: 'try-demo', title: 'Try the demo', command: 'icm demo' },
      { id: 'install-server', title: 'Install Ollama', url: 'https://ollama.com/download', model: 'qwen3.5:9b' },
    ],
  };
  const before = runNotice({
    ...base,
    ok: false,
    outcome: 'refused',
    message: `no model server at ${url}; Ollama is not installed on this machine`,
    face: { ...approved, detail: `last re-run refused: no model server at ${url}; Ollama is not installed on this machine` },
    error,
  });
  const during = runNotice({
    ...base,
    stage: '04-draft',
    ok: false,
    outcome: 'failed',
    message: `the model server at ${url} stopped answering during 04-draft; 1 of 2 items is kept; Ollama is not installed on this machine`,
    face: { status: 'failed', label: 'failed', icon: 'error', tone: 'error' },
    error,
  });
  assert.match(before.text, /^01-scope run refused: no model server at http:\/\/127\.0\.0\.1:4242; Ollama is not installed on this machine — Start the server you run there, or set another address; or install Ollama, or try the demo\. 01-scope is still approved\.$/);
  assert.match(during.text, /^The model server at http:\/\/127\.0\.0\.1:4242 stopped answering during 04-draft; 1 of 2 items is kept; Ollama is not installed on this machine — /);
  for (const n of [before, during]) {
    assert.equal(n.text.split(url).length - 1, 1, `the address is told more than once: ${n.text}`);
    assert.deepEqual(
      n.actions.map((a) => a.title),
      ['Set Server Address', 'Try the Demo', 'Install Ollama', 'Retry'],
    );
  }
});

test('notices name files relative to the workspace, and the workspace by its name', () => {
  const n = runNotice({
    ...base,
    workspace: '/home/ada/course',
    ok: false,
    outcome: 'failed',
    message: 'stage 01-scope: unable to read /home/ada/course/pipeline/01-scope/input.md: permission denied',
  });
  assert.equal(n.text, '01-scope run failed: unable to read pipeline/01-scope/input.md: permission denied');
  // Run All while another run holds the workspace.
  const e = errorNotice(
    'another icm run is working in /home/ada/course (pid 42, icm run, since 10:04:05)',
    { kind: 'locked', hint: 'wait for that run to end, or stop it', actions: [] },
    '/home/ada/course',
  );
  assert.equal(e.text, 'Another icm run is working in course (pid 42, icm run, since 10:04:05) — Wait for that run to end, or stop it.');
  // A path that only starts like the workspace's is left alone.
  assert.equal(errorNotice('see /home/ada/course-old/x.md', undefined, '/home/ada/course').text, 'See /home/ada/course-old/x.md');
});
