import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { serverSettings } from '../../src/settings';

test('serverSettings', async (t) => {
  const cases: { name: string; config: Record<string, unknown>; want: object }[] = [
    { name: 'nothing set', config: {}, want: {} },
    { name: 'empty strings leave config.toml in charge', config: { 'ollama.host': '', model: ' ', 'workflow.gate': '' }, want: {} },
    {
      name: 'all set',
      config: { 'ollama.host': 'http://127.0.0.1:11434', model: 'qwen3:4b', 'workflow.gate': 'rerun' },
      want: { ollamaHost: 'http://127.0.0.1:11434', model: 'qwen3:4b', gate: 'rerun' },
    },
    { name: 'trimmed', config: { model: '  tiny  ' }, want: { model: 'tiny' } },
    { name: 'non-strings ignored', config: { model: 42, 'ollama.host': null }, want: {} },
    { name: 'other keys ignored', config: { 'server.path': '/x/icm', 'trace.server': 'verbose' }, want: {} },
  ];
  for (const c of cases) {
    await t.test(c.name, () => assert.deepEqual(serverSettings((k) => c.config[k]), c.want));
  }
});
