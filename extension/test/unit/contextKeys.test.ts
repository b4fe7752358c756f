import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ContextKey, setupKeys, statusKeys } from '../../src/contextKeys';
import type { SetupPlan, StageStatus, WorkspaceStatus } from '../../src/protocol';

const manifest = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8'));

function stage(name: string, over: Partial<StageStatus> = {}): StageStatus {
  return {
    name,
    status: 'pending',
    reason: '',
    face: { status: 'pending', label: 'pending', icon: 'circle-large-outline', tone: 'info' },
    contract: `/w/pipeline/${name}/CONTEXT.md`,
    outputs: [`/w/pipeline/${name}/output/out.md`],
    tokens: 0,
    items: -1,
    ...over,
  };
}

function ws(stages: StageStatus[]): WorkspaceStatus {
  return { workspace: '/w', name: 'w', stages, trust: { state: 'trusted', allowed: true, summary: '' } };
}

test('statusKeys: the palette\'s Re-run This Item shows in a For each output', () => {
  const list = [ws([stage('03-outline', { lastRun: '2026-12-01T10:00:00Z' }), stage('04-draft', { items: 4, lastRun: '2026-12-01T10:00:00Z' })])];
  assert.equal(statusKeys(list, '/w/pipeline/04-draft/output/out.md')[ContextKey.itemOutput], true);
  // An output of a stage without For each, a contract, a file elsewhere.
  for (const file of ['/w/pipeline/03-outline/output/out.md', '/w/pipeline/04-draft/CONTEXT.md', '/elsewhere/out.md', undefined]) {
    assert.equal(statusKeys(list, file)[ContextKey.itemOutput], false, String(file));
  }
});

test('statusKeys: a stage ran, a stage is approved', () => {
  const none = statusKeys([ws([stage('01-scope')])], undefined);
  assert.equal(none[ContextKey.stageRan], false);
  assert.equal(none[ContextKey.stageApproved], false);
  const ran = statusKeys([ws([stage('01-scope', { status: 'awaiting-review', lastRun: '2026-12-01T10:00:00Z' })])], undefined);
  assert.equal(ran[ContextKey.stageRan], true);
  assert.equal(ran[ContextKey.stageApproved], false);
  const approved = statusKeys([ws([stage('01-scope', { status: 'approved', lastRun: '2026-12-01T10:00:00Z' })])], undefined);
  assert.equal(approved[ContextKey.stageApproved], true);
  // A config error keeps the approval: it is still approved.
  const kept = statusKeys([ws([stage('01-scope', { status: 'config-error', kept: 'approved' })])], undefined);
  assert.equal(kept[ContextKey.stageApproved], true);
});

test('setupKeys: a setup step only for a workspace that has setup, done once nothing is left to ask', () => {
  const plan = (asks: number, questionnaire?: string): SetupPlan => ({
    questionnaire,
    asks: Array.from({ length: asks }, (_, i) => ({ vars: [`V${i}`], question: `Q${i}?` })),
  });
  // No questionnaire, no setup-time variable: no step.
  assert.deepEqual(setupKeys([{ all: plan(0), open: plan(0) }]), { [ContextKey.hasSetup]: false, [ContextKey.setupDone]: false });
  assert.deepEqual(setupKeys([{ all: plan(2, 'setup/questionnaire.md'), open: plan(2, 'setup/questionnaire.md') }]), {
    [ContextKey.hasSetup]: true,
    [ContextKey.setupDone]: false,
  });
  assert.deepEqual(setupKeys([{ all: plan(2, 'setup/questionnaire.md'), open: plan(0, 'setup/questionnaire.md') }]), {
    [ContextKey.hasSetup]: true,
    [ContextKey.setupDone]: true,
  });
});

test('the walkthrough follows the workspace: no setup step without setup, a step done when it is done', () => {
  const steps = manifest.contributes.walkthroughs[0].steps as { id: string; when?: string; completionEvents: string[] }[];
  const byId = new Map(steps.map((s) => [s.id, s]));
  assert.equal(byId.get('setUp')?.when, ContextKey.hasSetup);
  assert.ok(byId.get('setUp')?.completionEvents.includes(`onContext:${ContextKey.setupDone}`));
  // A run that failed is not a first stage run: done when a stage ran.
  assert.deepEqual(byId.get('runFirst')?.completionEvents, [`onContext:${ContextKey.stageRan}`]);
  assert.deepEqual(byId.get('review')?.completionEvents, [`onContext:${ContextKey.stageApproved}`]);
  for (const id of ['checkServer', 'pullModel']) {
    assert.ok(byId.get(id)?.completionEvents.includes(`onContext:${ContextKey.stageRan}`), `${id} is not done once a stage ran`);
  }
  // Every context key a step names is one the extension sets.
  const known = new Set(Object.values(ContextKey));
  for (const s of steps) {
    for (const e of s.completionEvents.filter((e) => e.startsWith('onContext:'))) {
      assert.ok(known.has(e.slice('onContext:'.length) as never), `${s.id} waits for ${e}`);
    }
  }
});

test('Re-run This Item is in the palette where the cursor can be in an item', () => {
  const entry = (manifest.contributes.menus.commandPalette as { command: string; when: string }[]).find((m) => m.command === 'icm.output.rerunItem');
  assert.equal(entry?.when, ContextKey.itemOutput);
});
