import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OutputsResult } from '../../src/protocol';
import { approvalNoteProblem, comparisons, messageOf, parseHistoryTime, verifyFailure } from '../../src/review';

test('verifyFailure', async (t) => {
  const reply = (message: string, data: unknown) => Object.assign(new Error(message), { code: -32803, data });
  const cases: [unknown, string | undefined][] = [
    // The dialog's question names the stage: the detail lists the checks alone.
    [reply('stage 01-scope has failing Verify checks: objectives.md is empty; no sources', { kind: 'verify-failed', actions: [] }), 'objectives.md is empty\nno sources'],
    [reply('a wording of its own', { kind: 'verify-failed', actions: [] }), 'a wording of its own'],
    [reply('a run is going', { kind: 'locked', actions: [] }), undefined],
    // The message is never read: only the kind decides.
    [new Error('verify-failed: objectives.md is empty'), undefined],
    [reply('x', { kind: 42 }), undefined],
    ['verify-failed: a string is not an error', undefined],
    [undefined, undefined],
  ];
  for (const [err, want] of cases) {
    await t.test(messageOf(err), () => assert.equal(verifyFailure(err), want));
  }
});

test('comparisons', async (t) => {
  const cases: { name: string; r: OutputsResult; want: [string, string, string][] }[] = [
    {
      name: 'one output, newest kept version',
      r: {
        outputs: [{ path: '/w/p/01/output/objectives.md', exists: true }],
        previous: [
          { path: '/w/history/r2/objectives.md', runId: 'r2', time: '2026-11-30T10:00:00Z' },
          { path: '/w/history/r1/objectives.md', runId: 'r1', time: '2026-11-29T10:00:00Z' },
        ],
      },
      want: [['objectives.md', '/w/p/01/output/objectives.md', '/w/history/r2/objectives.md']],
    },
    {
      name: 'an incomplete answer is not an earlier output',
      r: {
        outputs: [{ path: '/w/p/01/output/objectives.md', exists: true }],
        previous: [{ path: '/w/history/versions/01/20261130-101502.000-incomplete/answer.md', runId: 'incomplete', time: 't' }],
      },
      want: [],
    },
    {
      name: 'several outputs pair by name',
      r: {
        outputs: [
          { path: '/w/o/a.md', exists: true },
          { path: '/w/o/b.md', exists: true },
          { path: '/w/o/c.md', exists: false },
        ],
        previous: [
          { path: '/h/2/b.md', runId: '2', time: 't2' },
          { path: '/h/2/c.md', runId: '2', time: 't2' },
          { path: '/h/1/a.md', runId: '1', time: 't1' },
          { path: '/h/1/b.md', runId: '1', time: 't1' },
        ],
      },
      want: [
        ['a.md', '/w/o/a.md', '/h/1/a.md'],
        ['b.md', '/w/o/b.md', '/h/2/b.md'],
      ],
    },
    { name: 'no history', r: { outputs: [{ path: '/w/o/a.md', exists: true }], previous: [] }, want: [] },
    {
      name: 'output deleted',
      r: { outputs: [{ path: '/w/o/a.md', exists: false }], previous: [{ path: '/h/a.md', runId: '1', time: 't' }] },
      want: [],
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () =>
      assert.deepEqual(
        comparisons(c.r).map((p) => [p.label, p.current, p.previous]),
        c.want,
      ),
    );
  }
});

test('parseHistoryTime', async (t) => {
  const cases: [string, string | undefined][] = [
    ['20261130-101502.250', '2026-11-30T10:15:02.250Z'],
    ['20261130-101502', '2026-11-30T10:15:02.000Z'],
    ['2026-11-30T10:00:00Z', '2026-11-30T10:00:00.000Z'],
    ['2026-11-30T11:00:00+01:00', '2026-11-30T10:00:00.000Z'],
    ['yesterday', undefined],
    ['', undefined],
    ['2026-11-30Tnonsense', undefined],
  ];
  for (const [input, want] of cases) {
    await t.test(JSON.stringify(input), () => assert.equal(parseHistoryTime(input)?.toISOString(), want));
  }
});

test('approvalNoteProblem', async (t) => {
  // Approving past failing checks needs a note: the server refuses one
  // without, so the box says so before sending.
  const cases: [string, boolean][] = [
    ['', true],
    ['   \n\t', true],
    ['the two sources are in the inputs', false],
  ];
  for (const [note, refused] of cases) {
    await t.test(JSON.stringify(note), () => assert.equal(approvalNoteProblem(note) !== undefined, refused));
  }
});
