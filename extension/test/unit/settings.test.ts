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

test('a model server from the workspace\'s own settings is marked as the workspace\'s', () => {
  const get = (k: string) => ({ 'ollama.host': 'http://10.0.0.9:11434' })[k];
  assert.deepEqual(serverSettings(get, () => ({ workspaceValue: 'http://10.0.0.9:11434' })), {
    ollamaHost: 'http://10.0.0.9:11434',
    workspaceScoped: ['ollamaHost'],
  });
  assert.deepEqual(serverSettings(get, () => ({ workspaceFolderValue: ' http://10.0.0.9:11434 ' })).workspaceScoped, ['ollamaHost']);
  // The person's own (user) value, with another in the workspace that VS Code did not apply.
  assert.deepEqual(serverSettings(get, () => ({ workspaceValue: 'http://elsewhere:1' })), { ollamaHost: 'http://10.0.0.9:11434' });
  assert.deepEqual(serverSettings(get, () => undefined), { ollamaHost: 'http://10.0.0.9:11434' });
});
