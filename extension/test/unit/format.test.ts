import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { formatCount, formatDuration, formatEstimate, formatMoment, formatRate, formatSize, formatTime, formatTokens, plural } from '../../src/format';

/**
 * The figures table the Go formatter (server/internal/human) passes too:
 * the extension and the server write every figure the same way.
 */
const table = JSON.parse(
  readFileSync(path.resolve(__dirname, '../../../../server/internal/human/testdata/table.json'), 'utf8'),
) as {
  duration: { ms: number; want: string }[];
  count: { n: number; want: string }[];
  plural: { n: number; noun: string; want: string }[];
  tokens: { n: number; want: string }[];
  estimate: { n: number; want: string }[];
  size: { n: number; want: string }[];
  rate: { n: number; ms: number; want: string }[];
  time: { t: string; now: string; want: string; moment: string }[];
};

test('the shared figures table: durations, counts, tokens, sizes', () => {
  for (const section of [table.duration, table.count, table.plural, table.tokens, table.estimate, table.size, table.rate]) {
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
  for (const c of table.tokens) {
    assert.equal(formatTokens(c.n), c.want, `formatTokens(${c.n})`);
  }
  for (const c of table.estimate) {
    assert.equal(formatEstimate(c.n), c.want, `formatEstimate(${c.n})`);
  }
  for (const c of table.size) {
    assert.equal(formatSize(c.n), c.want, `formatSize(${c.n})`);
  }
  for (const c of table.rate) {
    assert.equal(formatRate(c.n, c.ms), c.want, `formatRate(${c.n}, ${c.ms})`);
  }
});

test('the shared figures table: times', () => {
  assert.ok(table.time.length > 0);
  for (const c of table.time) {
    assert.equal(formatTime(new Date(c.t), new Date(c.now), true), c.want, `formatTime(${c.t})`);
    assert.equal(formatMoment(new Date(c.t), new Date(c.now), true), c.moment, `formatMoment(${c.t})`);
  }
});
