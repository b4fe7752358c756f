import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { PercentTracker } from '../../src/progress';

test('PercentTracker turns percentages into increments', async (t) => {
  const cases: { name: string; reports: (number | undefined)[]; want: (number | undefined)[] }[] = [
    { name: 'steady', reports: [20, 40, 100], want: [20, 20, 60] },
    { name: 'no percentage', reports: [undefined, undefined], want: [undefined, undefined] },
    { name: 'repeats add nothing', reports: [50, 50, 60], want: [50, undefined, 10] },
    { name: 'never backwards', reports: [60, 40, 70], want: [60, undefined, 10] },
    { name: 'clamped', reports: [-5, 150, 200], want: [undefined, 100, undefined] },
    { name: 'not a number', reports: [Number.NaN, 10], want: [undefined, 10] },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const p = new PercentTracker();
      assert.deepEqual(
        c.reports.map((r) => p.increment(r)),
        c.want,
      );
    });
  }
});
