import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { launchArgs, mcpProviderId, mcpServerId, mcpServerSpec } from '../../src/mcpPresent';

const manifest = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8'));

test('the workspace MCP server serves the open folders', () => {
  assert.deepEqual(mcpServerSpec(['/w/a', '/w/b']), { label: 'icm', args: ['mcp', 'workspace', '/w/a', '/w/b'] });
});

test('the server VS Code is given does not change when the folder is trusted', () => {
  // Issue 34 (8): the definition changed with the editor's trust (it
  // gained or lost --restricted), so VS Code stopped the server that
  // "Trust Folder & Continue" was starting, and it stayed Stopped.
  assert.deepEqual(mcpServerSpec(['/w/a']), mcpServerSpec(['/w/a']));
  assert.ok(!(mcpServerSpec(['/w/a'])?.args ?? []).includes('--restricted'));
});

test('a server started while VS Code is in Restricted Mode is read-only', () => {
  // VS Code asks for the folder's trust before it starts the server; if
  // it ever starts it without, icm serves the folders read-only.
  const args = ['mcp', 'workspace', '/w/a'];
  assert.deepEqual(launchArgs(args, false), ['mcp', 'workspace', '/w/a', '--restricted']);
  assert.deepEqual(launchArgs(args, true), args);
  assert.deepEqual(launchArgs([...args, '--restricted'], false), [...args, '--restricted']);
});

test('the server is started by the id VS Code gives it', () => {
  // VS Code names a provider's server EXTENSION-ID/LABEL, the id in lower case.
  assert.equal(mcpServerId('icm-tool.icm', 'icm'), 'icm-tool.icm/icm');
  assert.equal(mcpServerId('ICM-Tool.ICM', 'icm'), 'icm-tool.icm/icm');
});

test('no folder, no server', () => {
  assert.equal(mcpServerSpec([]), undefined);
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
