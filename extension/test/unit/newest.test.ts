import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { Newest } from '../../src/newest';

test('of two reads that overlap, the older one, ending last, is dropped', async () => {
  // The Runs view read the runs when a stage ended (the run still going)
  // and again when the run ended; the first answer came last and its row
  // said "running" after the run had ended (issue 34).
  const newest = new Newest();
  const shown: string[] = [];
  const read = async (answer: string, delay: number) => {
    const still = newest.begin();
    await new Promise((r) => setTimeout(r, delay));
    if (still()) {
      shown.push(answer);
    }
  };
  await Promise.all([read('running', 20), read('done', 1)]);
  assert.deepEqual(shown, ['done']);
  await read('done again', 0);
  assert.deepEqual(shown, ['done', 'done again']);
});
