import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { chosenServerPath, resolveServerPath, type IcmConfiguration, type ServerPathInput, type SettingLevels } from '../../src/serverPath';

/** A configuration whose icm.server.path has the values levels gives. */
function config(levels: SettingLevels): IcmConfiguration {
  return {
    inspect: (key: string) => {
      assert.equal(key, 'server.path');
      return { defaultValue: '', ...levels };
    },
  };
}

const base: ServerPathInput = {
  config: config({}),
  extensionPath: '/ext',
  platform: 'linux',
  homeDir: '/home/u',
  exists: () => true,
};

test('resolveServerPath', async (t) => {
  const cases: { name: string; input: Partial<ServerPathInput>; want?: string; source?: string; error?: RegExp }[] = [
    { name: 'packaged binary', input: {}, want: '/ext/extension/bin/icm', source: 'bundled' },
    { name: 'packaged binary on Windows', input: { platform: 'win32' }, want: '/ext/extension/bin/icm.exe', source: 'bundled' },
    { name: 'nothing packaged', input: { exists: () => false }, error: /set icm\.server\.path/ },
    { name: 'blank setting is unset', input: { config: config({ globalValue: '   ' }) }, want: '/ext/extension/bin/icm', source: 'bundled' },
    { name: 'absolute setting', input: { config: config({ globalValue: '/opt/icm/bin/icm' }) }, want: '/opt/icm/bin/icm', source: 'setting' },
    { name: 'absolute setting missing', input: { config: config({ globalValue: '/nope/icm' }), exists: () => false }, error: /\/nope\/icm does not exist/ },
    { name: 'home folder', input: { config: config({ globalValue: '~/go/bin/icm' }) }, want: '/home/u/go/bin/icm', source: 'setting' },
    { name: 'bare name is left to PATH', input: { config: config({ globalValue: 'icm' }), exists: () => false }, want: 'icm', source: 'setting' },
    // A machine setting names one program for every folder: a path that
    // depends on the folder open would let the folder choose it.
    { name: 'workspace folder variable', input: { config: config({ globalValue: '${workspaceFolder}/bin/icm' }) }, error: /cannot depend on the folder.*absolute path/ },
    { name: 'relative path', input: { config: config({ globalValue: 'bin/icm' }) }, error: /"bin\/icm" is relative.*absolute path/ },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const input = { ...base, ...c.input };
      if (c.error !== undefined) {
        assert.throws(() => resolveServerPath(input), c.error);
        return;
      }
      const got = resolveServerPath(input);
      assert.equal(got.command, c.want);
      assert.equal(got.source, c.source);
    });
  }
});

test('a workspace cannot pick the program: its icm.server.path is never read', () => {
  // A folder the person trusted in VS Code sets icm.server.path in
  // .vscode/settings.json (or a folder's settings) to its own tools/icm.
  const planted = { workspaceValue: '/ws/tools/icm', workspaceFolderValue: 'tools/icm' };
  assert.equal(chosenServerPath(config(planted)), '');
  assert.deepEqual(resolveServerPath({ ...base, config: config(planted) }), { command: '/ext/extension/bin/icm', source: 'bundled' });
  // Beside the person's own choice, the person's choice is started.
  const chosen = config({ ...planted, globalValue: '/opt/icm/bin/icm' });
  assert.equal(chosenServerPath(chosen), '/opt/icm/bin/icm');
  assert.deepEqual(resolveServerPath({ ...base, config: chosen }), { command: '/opt/icm/bin/icm', source: 'setting' });
});

test('the language server and the MCP server start the same program, resolved one way', () => {
  // From extension/out/test/unit/ to extension/src/.
  const src = path.join(__dirname, '../../../src');
  for (const file of ['server.ts', 'mcpProvider.ts']) {
    const text = readFileSync(path.join(src, file), 'utf8');
    assert.ok(/resolveServerPath\(\{\s*config: vscode\.workspace\.getConfiguration\('icm'\),/.test(text), `${file} does not resolve the binary from icm's configuration`);
    assert.ok(!/\.(get|inspect)(<[^>]*>)?\(\s*['"](icm\.)?server\.path/.test(text), `${file} reads icm.server.path itself`);
  }
});

test('icm.server.path is a machine setting: no workspace or folder settings file can set it', () => {
  const manifest = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8'));
  const setting = manifest.contributes.configuration.properties['icm.server.path'];
  assert.equal(setting.scope, 'machine');
  assert.match(setting.markdownDescription, /absolute path/);
  assert.match(setting.markdownDescription, /never .*workspace/i);
});
