import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { doctorItems, doctorTitle } from '../../src/doctor';
import type { DoctorResult } from '../../src/protocol';

const report: DoctorResult = {
  workspace: '/w',
  failed: 1,
  lines: [
    { id: 'server', title: 'model server', status: 'ok', text: 'http://127.0.0.1:11434 answers (version 0.17.4)' },
    {
      id: 'model',
      title: 'model',
      status: 'fail',
      text: 'qwen3:4b is not installed; the nearest installed is qwen3:1.7b',
      fix: { id: 'pull-model', title: 'Pull qwen3:4b', model: 'qwen3:4b' },
    },
    { id: 'window', title: 'context window', status: 'skip', text: "the model's window cannot be asked" },
  ],
};

test('doctorItems puts what failed first, with its button', () => {
  const items = doctorItems(report);
  assert.equal(items[0].label, '$(error) model');
  assert.equal(items[0].detail, '$(wrench) Pull qwen3:4b');
  assert.equal(items[0].fix?.id, 'pull-model');
  assert.equal(items[1].label, '$(pass) model server');
  assert.equal(items[1].fix, undefined);
  assert.equal(items[2].label, '$(circle-slash) context window');
  for (const i of items) {
    assert.doesNotMatch(`${i.description} ${i.detail ?? ''}`, /icm |--/, 'no command line in the editor');
  }
});

test('doctorTitle counts what to fix', () => {
  assert.equal(doctorTitle(report), 'ICM Doctor: 1 thing to fix (pick one to fix it)');
  assert.equal(doctorTitle({ ...report, failed: 0 }), 'ICM Doctor: everything a run needs is in place');
});

test('each check result has the vocabulary\'s icon', () => {
  const table = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../server/internal/human/testdata/table.json'), 'utf8')) as {
    check: { status: string; icon: string }[];
  };
  assert.ok(table.check.length > 0);
  for (const c of table.check) {
    const [item] = doctorItems({ ...report, lines: [{ id: 'x', title: 'x', status: c.status, text: '' }] });
    assert.equal(item.label, `$(${c.icon}) x`, c.status);
  }
});
