import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { faceText, formatRunTime, legendItems, legendTooltip, pickOrder, stageOf, stageView, statusBarView, workspaceOf } from '../../src/present';
import type { StageFace, StageState, StageStatus, WorkspaceStatus } from '../../src/protocol';

// The faces the server sends (state.FaceOf), for the states these tests use.
const looks: Record<StageState, Omit<StageFace, 'status' | 'detail'>> = {
  pending: { label: 'pending', icon: 'circle-large-outline', tone: 'info' },
  running: { label: 'running', icon: 'sync~spin', tone: 'info' },
  'awaiting-review': { label: 'awaiting review', icon: 'eye', color: 'charts.yellow', tone: 'info' },
  approved: { label: 'approved', icon: 'pass-filled', color: 'testing.iconPassed', tone: 'ok' },
  stale: { label: 'stale', icon: 'history', color: 'charts.orange', tone: 'warning' },
  failed: { label: 'failed', icon: 'error', color: 'testing.iconFailed', tone: 'error' },
  invalid: { label: 'has errors', icon: 'circle-slash', color: 'errorForeground', tone: 'error' },
  'config-error': { label: 'config error', icon: 'settings-gear', color: 'errorForeground', tone: 'error' },
};

function faceOf(status: StageState, detail?: string): StageFace {
  return { status, ...looks[status], detail };
}

function stage(name: string, over: Partial<StageStatus> = {}): StageStatus {
  const status = over.status ?? 'pending';
  return {
    name,
    status,
    reason: 'not run yet',
    face: faceOf(status),
    contract: `/w/pipeline/${name}/CONTEXT.md`,
    outputs: [`/w/pipeline/${name}/output/out.md`],
    tokens: 819,
    context: '~819 tokens',
    items: -1,
    ...over,
  };
}

function workspace(over: Partial<WorkspaceStatus> = {}): WorkspaceStatus {
  return {
    workspace: '/w',
    name: 'course-research',
    running: null,
    next: { stage: '01-scope', action: 'run', message: '01-scope ready to run: `icm run`' },
    stages: [stage('01-scope'), stage('02-research'), stage('03-outline')],
    trust: { state: 'trusted', allowed: true, summary: 'trusted' },
    ...over,
  };
}

// A local time on a fixed day, so the expectations hold in any time zone.
const now = new Date(2026, 10, 30, 15, 0);

test('formatRunTime', async (t) => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ['', undefined],
    ['not a time', undefined],
    [new Date(2026, 10, 30, 9, 5).toISOString(), 'ran 09:05'],
    [new Date(2026, 10, 28, 17, 45).toISOString(), 'ran Nov 28 17:45'],
    [new Date(2025, 0, 2, 8, 0).toISOString(), 'ran Jan 2 2025 08:00'],
  ];
  for (const [iso, want] of cases) {
    await t.test(String(iso), () => assert.equal(formatRunTime(iso, now), want));
  }
});

test('stageView', async (t) => {
  const ran = new Date(2026, 10, 30, 10, 0).toISOString();
  const cases: {
    name: string;
    ws: WorkspaceStatus;
    stage: string;
    description: string;
    contextValue: string;
    icon: string;
  }[] = [
    {
      name: 'pending, never ran',
      ws: workspace(),
      stage: '01-scope',
      // A row leads with the state's word, its details in the tooltip: at
      // 1280 px beside the secondary side bar, "awaiting review, Verif…"
      // was cut (issue 34).
      description: 'pending',
      contextValue: 'stage:pending',
      icon: 'circle-large-outline',
    },
    {
      name: 'awaiting review with output',
      ws: workspace({ stages: [stage('01-scope', { status: 'awaiting-review', lastRun: ran })] }),
      stage: '01-scope',
      description: 'awaiting review',
      contextValue: 'stage:awaiting-review:output',
      icon: 'eye',
    },
    {
      name: 'Verify failures are named',
      ws: workspace({ stages: [stage('01-scope', { status: 'awaiting-review', lastRun: ran, verifyFailed: true })] }),
      stage: '01-scope',
      description: 'awaiting review',
      contextValue: 'stage:awaiting-review:output',
      icon: 'eye',
    },
    {
      name: 'running For each item from the workspace',
      ws: workspace({
        running: { stage: '02-research', runId: 'r', item: 4, items: 5, done: 2, count: '2 of 5 items done', text: '2 of 5 items done · running item 4: Tools' },
        stages: [stage('02-research', { status: 'running', face: faceOf('running', '2 of 5 items done · running item 4: Tools'), tokens: 12345, context: '~12k tokens' })],
      }),
      stage: '02-research',
      // The running record's short words, as the status bar counts
      // (before: "[2/5]" beside a toast's "running [4/5]").
      description: 'running · 2 of 5 items done',
      contextValue: 'stage:running',
      icon: 'sync~spin',
    },
    {
      name: 'a stage with no outputs has nothing to open',
      ws: workspace({ stages: [stage('01-scope', { status: 'approved', lastRun: ran, outputs: [], tokens: 0, context: undefined })] }),
      stage: '01-scope',
      description: 'approved',
      contextValue: 'stage:approved',
      icon: 'pass-filled',
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const st = c.ws.stages.find((s) => s.name === c.stage) as StageStatus;
      const v = stageView(c.ws, st, now);
      assert.equal(v.label, c.stage);
      assert.equal(v.description, c.description);
      assert.equal(v.contextValue, c.contextValue);
      assert.equal(v.icon.id, c.icon);
      assert.equal(v.id, `/w#${c.stage}`);
      assert.match(v.tooltip, new RegExp(`^\\*\\*${c.stage}\\*\\*`));
    });
  }
  await t.test('the server\'s words are shown as they are', () => {
    // Before, the row made its own "~819 tokens" from the figure and its
    // own last-run line, where the lens and the hover said otherwise.
    const st = stage('04-draft', {
      status: 'approved',
      face: faceOf('approved'),
      lastRun: ran,
      context: '4 calls, ~5.2k tokens',
      lastRunStats: { runId: 'r', promptTokens: 4504, outputTokens: 312, durationMs: 12340, modelCalls: 3, toolCalls: 5, toolErrors: 2, text: '4,504 tokens in / 312 out · 12 s · qwen3.5:9b · 3 model calls, 2 of 5 tool calls failed' },
    });
    const v = stageView(workspace({ stages: [st] }), st, now);
    assert.equal(v.description, 'approved');
    assert.match(v.tooltip, /Context: 4 calls, ~5\.2k tokens/);
    assert.match(v.tooltip, /Last run: 10:00:00 · 4,504 tokens in \/ 312 out · 12 s · qwen3\.5:9b · 3 model calls, 2 of 5 tool calls failed/);
  });
  await t.test('what more there is than the state is in the tooltip and the screen reader\'s label', () => {
    const st = stage('01-scope', {
      status: 'approved',
      face: faceOf('approved', 'last re-run failed: no model server at http://127.0.0.1:11434'),
      lastRun: ran,
    });
    const v = stageView(workspace({ stages: [st] }), st, now);
    assert.equal(v.description, 'approved');
    assert.match(v.tooltip, /last re-run failed: no model server/);
    assert.match(v.accessibleLabel, /^01-scope, approved, last re-run failed, ~819 tokens, ran 10:00$/);
    const verify = stage('01-scope', { status: 'awaiting-review', lastRun: ran, verifyFailed: true });
    assert.match(stageView(workspace({ stages: [verify] }), verify, now).accessibleLabel, /^01-scope, awaiting review, Verify failed/);
  });
  await t.test('an output awaiting review keeps its Approve while its contract has errors', () => {
    const st = stage('01-scope', {
      status: 'awaiting-review',
      face: { ...faceOf('awaiting-review', 'its contract has errors: input notes.md does not exist'), tone: 'warning' },
      lastRun: ran,
    });
    const v = stageView(workspace({ stages: [st] }), st, now);
    assert.equal(v.description, 'awaiting review');
    assert.equal(v.contextValue, 'stage:awaiting-review:output');
    assert.match(v.tooltip, /its contract has errors: input notes\.md does not exist/);
  });
  await t.test('a config error says, to a screen reader too, what it keeps', () => {
    const v = stageView(workspace(), stage('01-scope', { status: 'config-error', kept: 'approved' }), now);
    assert.match(v.accessibleLabel, /^01-scope, config error, its approval is kept/);
    const w = stageView(workspace(), stage('01-scope', { status: 'config-error', kept: 'awaiting-review' }), now);
    assert.match(w.accessibleLabel, /^01-scope, config error, its output is kept for review/);
  });
  await t.test('the gate summary is in the tooltip, line by line in the server\'s words', () => {
    const st = stage('01-map', {
      status: 'awaiting-review',
      face: faceOf('awaiting-review'),
      lastRun: ran,
      gate: [
        { status: 'fail', word: 'FAIL', text: '2 of 3 outputs written; still missing: output/risks.md; run the stage again for the rest', action: 'run' },
        { status: 'warn', word: 'WARN', text: 'icm read the contract with 1 warning (the stage ran all the same)', items: ['stages/01-map/CONTEXT.md:14: *min-words* needs a number'] },
      ],
    });
    const v = stageView(workspace({ stages: [st] }), st, now);
    assert.match(
      v.tooltip,
      /\n\nFAIL 2 of 3 outputs written; still missing: output\/risks\.md; run the stage again for the rest\n\nWARN icm read the contract with 1 warning \\\(the stage ran all the same\\\):\n- stages\/01-map\/CONTEXT\.md:14: \\\*min-words\\\* needs a number(\n|$)/,
    );
    // The row itself reads as it would without the summary.
    const plain = { ...st, gate: undefined };
    assert.equal(v.description, stageView(workspace({ stages: [plain] }), plain, now).description);
  });
  await t.test('reason is escaped in the tooltip', () => {
    const v = stageView(workspace(), stage('01-scope', { face: faceOf('stale', 'input *x* changed') }), now);
    assert.match(v.tooltip, /input \\\*x\\\* changed/);
  });
});

test('statusBarView', async (t) => {
  const cases: { name: string; ws: WorkspaceStatus; icon: string; label: string }[] = [
    { name: 'ready to run', ws: workspace(), icon: 'play', label: '01-scope ready to run' },
    {
      name: 'awaiting review',
      ws: workspace({
        next: { stage: '01-scope', action: 'approve', message: '01-scope awaiting review: read it' },
        stages: [stage('01-scope', { status: 'awaiting-review' })],
      }),
      icon: 'eye',
      label: '01-scope awaiting review',
    },
    {
      name: 'stale',
      ws: workspace({ stages: [stage('01-scope', { status: 'stale' })] }),
      icon: 'play',
      label: '01-scope stale, runs again',
    },
    {
      name: 'fix',
      ws: workspace({
        next: { stage: '02-research', action: 'fix', message: 'fix it' },
        stages: [stage('02-research', { status: 'invalid' })],
      }),
      icon: 'circle-slash',
      label: '02-research has errors',
    },
    {
      name: 'a config error keeps the approval and says where to fix it',
      ws: workspace({
        next: { stage: '01-scope', action: 'fix', message: 'fix it' },
        stages: [stage('01-scope', { status: 'config-error', kept: 'approved' })],
      }),
      icon: 'settings-gear',
      label: '01-scope config error',
    },
    {
      name: 'done',
      ws: workspace({ next: { action: 'done', message: 'every stage is approved' } }),
      icon: 'pass',
      label: 'all stages approved',
    },
    {
      name: 'running a For each',
      ws: workspace({
        running: { stage: '04-draft', runId: 'r', item: 5, items: 5, done: 3, count: '3 of 5 items done', text: '3 of 5 items done · running items 4 and 5' },
        stages: [stage('04-draft', { status: 'running', face: faceOf('running', '3 of 5 items done · running items 4 and 5') })],
      }),
      icon: 'sync~spin',
      // The running record's short words, as the row counts.
      label: '04-draft running · 3 of 5 items done',
    },
    {
      name: 'running a plain stage',
      ws: workspace({ running: { stage: '01-scope', runId: 'r', item: 0, items: -1 }, stages: [stage('01-scope', { status: 'running' })] }),
      icon: 'sync~spin',
      label: '01-scope running',
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const v = statusBarView(c.ws);
      assert.equal(v.icon, c.icon);
      assert.equal(v.label, c.label);
      assert.match(v.tooltip, /^ICM course-research: /);
      // The editor's words, never a command line.
      assert.doesNotMatch(v.tooltip, /`icm |icm (run|approve|check)\b/);
    });
  }
  await t.test('an untrusted workspace: trusting it is the next step', () => {
    const v = statusBarView(workspace({ trust: { state: 'untrusted', allowed: false, summary: 'not trusted: it names 1 Script stage' } }));
    assert.equal(v.icon, 'shield');
    assert.equal(v.label, 'course-research not trusted');
    assert.equal(v.command, 'icm.trustWorkspace');
    assert.match(v.tooltip, /^ICM course-research: not trusted: it names 1 Script stage\./);
    const ok = statusBarView(workspace({ trust: { state: 'trusted', allowed: true, summary: 'trusted' } }));
    assert.equal(ok.command, undefined);
    assert.equal(ok.label, '01-scope ready to run');
  });
  await t.test('the next step in the editor\'s words', () => {
    const approve = statusBarView(workspace({ next: { stage: '01-scope', action: 'approve', message: '01-scope awaiting review: read pipeline/01-scope/output/, edit if needed, then `icm approve 01-scope`' } }));
    assert.match(approve.tooltip, /01-scope awaits review: read its output, edit it if you like, then approve it/);
    const fix = statusBarView(workspace({ next: { stage: '01-scope', action: 'fix', message: '01-scope cannot run: fix the problems `icm check` reports in pipeline/01-scope/CONTEXT.md' } }));
    assert.match(fix.tooltip, /01-scope cannot run: fix the problems the Problems panel lists for its contract/);
    const server = statusBarView(workspace({ next: { stage: '01-scope', action: 'start-server', message: '01-scope ready to run once the model server answers: no model server at http://127.0.0.1:11434; start it: `ollama serve`' } }));
    assert.match(server.tooltip, /01-scope runs once the model server answers: ICM: Doctor says how to start it/);
    const wait = statusBarView(workspace({ next: { stage: '01-scope', action: 'wait', message: '01-scope is running: wait for the run to end, then `icm status`' } }));
    assert.match(wait.tooltip, /01-scope is running$/);
  });
});

test('workspaceOf and stageOf', async (t) => {
  const a = workspace({ workspace: '/x/a', name: 'a' });
  const nested = workspace({ workspace: '/x/a/inner', name: 'inner' });
  const ab = workspace({ workspace: '/x/ab', name: 'ab' });
  const list = [a, nested, ab];
  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ['/x/a/pipeline/01/CONTEXT.md', 'a'],
    ['/x/a/inner/CONTEXT.md', 'inner'],
    ['/x/ab/CONTEXT.md', 'ab'],
    ['/x/a', 'a'],
    ['/elsewhere/file.md', undefined],
  ];
  for (const [file, want] of cases) {
    await t.test(`workspace of ${file}`, () => assert.equal(workspaceOf(list, file)?.name, want));
  }
  const ws = workspace();
  const stageCases: [string | undefined, string | undefined][] = [
    ['/w/pipeline/02-research/CONTEXT.md', '02-research'],
    ['/w/pipeline/01-scope/output/out.md', '01-scope'],
    ['/w/pipeline/01-scope-old/CONTEXT.md', undefined],
    ['/w/CONTEXT.md', undefined],
    [undefined, undefined],
  ];
  for (const [file, want] of stageCases) {
    await t.test(`stage of ${file}`, () => assert.equal(stageOf(ws, file)?.name, want));
  }
});

test('pickOrder', async (t) => {
  const ws = workspace({ next: { stage: '02-research', action: 'run', message: '' } });
  const cases: [string | undefined, string[]][] = [
    [undefined, ['02-research', '01-scope', '03-outline']],
    ['/w/pipeline/03-outline/CONTEXT.md', ['03-outline', '02-research', '01-scope']],
    ['/w/pipeline/02-research/CONTEXT.md', ['02-research', '01-scope', '03-outline']],
  ];
  for (const [file, want] of cases) {
    await t.test(String(file), () =>
      assert.deepEqual(
        pickOrder(ws, ws.stages, file).map((s) => s.name),
        want,
      ),
    );
  }
  await t.test('only candidates', () =>
    assert.deepEqual(
      pickOrder(ws, [ws.stages[2]], undefined).map((s) => s.name),
      ['03-outline'],
    ),
  );
});

test('faces come from the server, the same words everywhere', async (t) => {
  const face = faceOf('approved', 'last re-run failed: no model server at http://127.0.0.1:11434');
  const ws = workspace({ stages: [stage('01-scope', { status: 'approved', face, lastRun: new Date(2026, 10, 30, 10, 0).toISOString() })] });
  await t.test('the view row', () => {
    const v = stageView(ws, ws.stages[0], now);
    // The state's word; the failed re-run in the tooltip, the screen
    // reader's label and the status bar.
    assert.equal(v.description, 'approved');
    assert.match(v.accessibleLabel, /approved, last re-run failed/);
    assert.equal(v.icon.id, 'pass-filled');
    assert.match(v.tooltip, /last re-run failed: no model server at http:\/\/127\.0\.0\.1:11434/);
  });
  await t.test('the one line', () => assert.equal(faceText(face), 'approved · last re-run failed: no model server at http://127.0.0.1:11434'));
});

test('the status bar says a re-run failed, whatever the next step', () => {
  const face = { status: 'approved' as const, label: 'approved', detail: 'last re-run failed: no model server at http://127.0.0.1:11434', icon: 'pass-filled', tone: 'warning' };
  const ws = workspace({
    next: { stage: '02-research', action: 'run', message: '02-research ready to run' },
    stages: [stage('01-scope', { status: 'approved', face }), stage('02-research'), stage('03-outline')],
  });
  const v = statusBarView(ws);
  assert.equal(v.label, '02-research ready to run · 01-scope re-run failed');
  assert.match(v.tooltip, /01-scope: approved · last re-run failed: no model server/);
});

test('the legend opens as a list wide enough to read, each state with its icon, word and meaning', () => {
  // Its rows in the Pipeline view were cut at 1280 px beside the
  // secondary side bar ("awaiting review output written; read, e…").
  const states = [
    { status: 'awaiting-review' as const, label: 'awaiting review', icon: 'eye', color: 'charts.yellow', means: 'output written; read, edit, approve' },
    { status: 'approved' as const, label: 'approved', icon: 'pass-filled', means: 'the next stage reads it' },
  ];
  assert.deepEqual(legendItems(states), [
    { label: '$(eye) awaiting review', detail: 'output written; read, edit, approve' },
    { label: '$(pass-filled) approved', detail: 'the next stage reads it' },
  ]);
  assert.equal(legendTooltip(states), '- **awaiting review**: output written; read, edit, approve\n- **approved**: the next stage reads it');
});
