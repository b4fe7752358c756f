import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { PipelineModel } from '../../src/model';
import type { WorkspaceStatus } from '../../src/protocol';

function ws(root: string, running = false): WorkspaceStatus {
  return {
    workspace: root,
    name: root.slice(1),
    running: running ? { stage: '01-a', runId: 'r1' } : null,
    stages: [],
    trust: { state: 'not-needed', allowed: true, summary: 'nothing to trust' },
  };
}

test('PipelineModel keeps order, replaces and notifies', () => {
  const m = new PipelineModel();
  let fired = 0;
  const sub = m.onDidChange(() => fired++);
  m.replaceAll([ws('/b'), ws('/a')]);
  assert.deepEqual(m.workspaces().map((w) => w.workspace), ['/b', '/a']);
  assert.equal(m.running(), false);

  m.update(ws('/a', true));
  assert.deepEqual(m.workspaces().map((w) => w.workspace), ['/b', '/a'], 'an update keeps the position');
  assert.equal(m.running(), true);
  assert.equal(m.get('/a')?.running?.stage, '01-a');

  m.update(ws('/c'));
  assert.deepEqual(m.workspaces().map((w) => w.workspace), ['/b', '/a', '/c'], 'a new workspace goes last');

  m.replaceAll([]);
  assert.equal(m.workspaces().length, 0);
  assert.equal(fired, 4);

  sub.dispose();
  m.update(ws('/d'));
  assert.equal(fired, 4, 'no call after dispose');
});

test('PipelineModel.holds: a file of no known workspace asks for the status again', () => {
  // Opening a repository that holds several workspaces: the server finds
  // them in the background and publishes their diagnostics after the
  // extension's first icm.status, which listed none.
  const m = new PipelineModel();
  assert.equal(m.holds('/repo/research/stages/01-a/CONTEXT.md'), false);
  m.replaceAll([ws('/repo/research')]);
  assert.equal(m.holds('/repo/research/stages/01-a/CONTEXT.md'), true);
  assert.equal(m.holds('/repo/research-old/stages/01-a/CONTEXT.md'), false, 'a sibling whose name starts alike');
  assert.equal(m.holds('/repo/course/stages/01-a/CONTEXT.md'), false);
});
