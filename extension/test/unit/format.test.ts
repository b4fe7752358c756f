import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { formatCount, formatDuration, formatMoment, formatTime, plural } from '../../src/format';

/**
 * The figures table the Go formatter (server/internal/human) passes too:
 * the figures the extension words itself read as the server's do.
 */
const table = JSON.parse(
  readFileSync(path.resolve(__dirname, '../../../../server/internal/human/testdata/table.json'), 'utf8'),
) as {
  duration: { ms: number; want: string }[];
  count: { n: number; want: string }[];
  plural: { n: number; noun: string; want: string }[];
  time: { t: string; now: string; want: string; moment: string }[];
};

test('the shared figures table: durations and counts', () => {
  for (const section of [table.duration, table.count, table.plural]) {
    assert.ok(section.length > 0, 'the table lost a section');
  }
  for (const c of table.duration) {
    assert.equal(formatDuration(c.ms), c.want, `formatDuration(${c.ms})`);
  }
  for (const c of table.count) {
    assert.equal(formatCount(c.n), c.want, `formatCount(${c.n})`);
  }
  for (const c of table.plural) {
    assert.equal(plural(c.n, c.noun), c.want, `plural(${c.n}, ${c.noun})`);
  }
});

test('the shared figures table: times', () => {
  assert.ok(table.time.length > 0);
  for (const c of table.time) {
    assert.equal(formatTime(new Date(c.t), new Date(c.now), true), c.want, `formatTime(${c.t})`);
    assert.equal(formatMoment(new Date(c.t), new Date(c.now), true), c.moment, `formatMoment(${c.t})`);
  }
});
