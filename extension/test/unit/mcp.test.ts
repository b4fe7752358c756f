import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { mcpProviderId, mcpServerSpec } from '../../src/mcpPresent';

const manifest = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8'));

test('the workspace MCP server serves the open folders', () => {
  assert.deepEqual(mcpServerSpec(['/w/a', '/w/b'], true), { label: 'icm', args: ['mcp', 'workspace', '/w/a', '/w/b'] });
});

test('in Restricted Mode the server is read-only', () => {
  assert.deepEqual(mcpServerSpec(['/w/a'], false)?.args, ['mcp', 'workspace', '/w/a', '--restricted']);
});

test('no folder, no server', () => {
  assert.equal(mcpServerSpec([], true), undefined);
});

test('the manifest contributes the provider the extension registers, on an editor that has the API', () => {
  const providers = manifest.contributes.mcpServerDefinitionProviders as { id: string; label: string }[];
  assert.deepEqual(
    providers.map((p) => p.id),
    [mcpProviderId],
  );
  // vscode.lm.registerMcpServerDefinitionProvider is there from 1.101.
  const [major, minor] = (manifest.engines.vscode as string).replace(/^\^/, '').split('.').map(Number);
  assert.ok(major > 1 || minor >= 101, `engines.vscode ${manifest.engines.vscode} predates the MCP server API (1.101)`);
  assert.equal(manifest.devDependencies['@types/vscode'], manifest.engines.vscode.replace(/^\^/, ''));
});
