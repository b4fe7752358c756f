import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkServerVersion, parseVersion } from '../../src/version';

test('parseVersion', async (t) => {
  const cases: [string, [number, number, number] | undefined][] = [
    ['0.1.0', [0, 1, 0]],
    ['v1.12.3', [1, 12, 3]],
    ['0.1.0-dev', [0, 1, 0]],
    ['2.0.1+abc123', [2, 0, 1]],
    [' 1.2.3 ', [1, 2, 3]],
    ['1.2', undefined],
    ['dev', undefined],
    ['(devel)', undefined],
    ['', undefined],
  ];
  for (const [input, want] of cases) {
    await t.test(JSON.stringify(input), () => assert.deepEqual(parseVersion(input), want));
  }
});

test('checkServerVersion', async (t) => {
  const cases: { expected: string; actual: string | undefined; ok: boolean; reason?: RegExp }[] = [
    { expected: '0.1.0', actual: '0.1.0', ok: true },
    { expected: '0.1.0', actual: '0.1.0-dev', ok: true },
    { expected: '0.1.0', actual: '0.1.7', ok: true },
    { expected: '0.1.0', actual: '0.2.0', ok: false, reason: /needs 0\.1\.x/ },
    { expected: '0.2.0', actual: '0.1.9', ok: false, reason: /is version 0\.1\.9/ },
    { expected: '1.2.0', actual: '1.3.0', ok: true },
    { expected: '1.2.0', actual: '1.1.0', ok: false, reason: /1\.x from 1\.2/ },
    { expected: '1.2.0', actual: '2.0.0', ok: false },
    { expected: '0.1.0', actual: undefined, ok: false, reason: /did not report/ },
    { expected: '0.1.0', actual: 'dev', ok: false, reason: /not a version/ },
    { expected: 'latest', actual: '0.1.0', ok: false, reason: /expected server version/ },
  ];
  for (const c of cases) {
    await t.test(`${c.expected} vs ${c.actual}`, () => {
      const got = checkServerVersion(c.expected, c.actual);
      assert.equal(got.ok, c.ok);
      if (!got.ok && c.reason !== undefined) {
        assert.match(got.reason, c.reason);
      }
    });
  }
});
