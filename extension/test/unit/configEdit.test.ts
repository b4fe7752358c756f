import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelNameEdit } from '../../src/configEdit';

const toml = `# Settings
[model]
name = "qwen3.5:9"   # the typo
temperature = 0.1

[mcp.servers.x]
name = "qwen3.5:9"
`;

test('modelNameEdit', async (t) => {
  await t.test('the [model] name line, keeping what follows the value', () => {
    assert.deepEqual(modelNameEdit(toml, 'qwen3.5:9', 'qwen3.5:9b'), { line: 2, text: 'name = "qwen3.5:9b"   # the typo' });
  });
  await t.test('single quotes and spaces', () => {
    assert.deepEqual(modelNameEdit("[model]\n  name='a'\n", 'a', 'b'), { line: 1, text: "  name='b'" });
  });
  await t.test('CRLF lines keep their ending out of the edited text', () => {
    assert.deepEqual(modelNameEdit('[model]\r\nname = "a"\r\n', 'a', 'b'), { line: 1, text: 'name = "b"' });
  });
  await t.test('nothing when config.toml names another model or none', () => {
    assert.equal(modelNameEdit(toml, 'llama3', 'qwen3.5:9b'), undefined);
    assert.equal(modelNameEdit('[workflow]\ngate = "explicit"\n', 'a', 'b'), undefined);
  });
  await t.test('a name outside [model] is not the model', () => {
    assert.equal(modelNameEdit('[mcp.servers.x]\nname = "a"\n', 'a', 'b'), undefined);
  });
});
