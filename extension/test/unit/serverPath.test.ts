import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveServerPath, type ServerPathInput } from '../../src/serverPath';

const base: ServerPathInput = {
  setting: '',
  extensionPath: '/ext',
  platform: 'linux',
  homeDir: '/home/u',
  workspaceFolder: '/ws',
  exists: () => true,
};

test('resolveServerPath', async (t) => {
  const cases: { name: string; input: Partial<ServerPathInput>; want?: string; source?: string; error?: RegExp }[] = [
    { name: 'packaged binary', input: {}, want: '/ext/extension/bin/icm', source: 'bundled' },
    { name: 'packaged binary on Windows', input: { platform: 'win32' }, want: '/ext/extension/bin/icm.exe', source: 'bundled' },
    { name: 'nothing packaged', input: { exists: () => false }, error: /set icm\.server\.path/ },
    { name: 'blank setting is unset', input: { setting: '   ' }, want: '/ext/extension/bin/icm', source: 'bundled' },
    { name: 'absolute setting', input: { setting: '/opt/icm/bin/icm' }, want: '/opt/icm/bin/icm', source: 'setting' },
    { name: 'absolute setting missing', input: { setting: '/nope/icm', exists: () => false }, error: /\/nope\/icm does not exist/ },
    { name: 'home folder', input: { setting: '~/go/bin/icm' }, want: '/home/u/go/bin/icm', source: 'setting' },
    { name: 'workspace folder variable', input: { setting: '${workspaceFolder}/bin/icm' }, want: '/ws/bin/icm', source: 'setting' },
    {
      name: 'workspace folder variable with no folder',
      input: { setting: '${workspaceFolder}/bin/icm', workspaceFolder: undefined },
      error: /no folder is open/,
    },
    { name: 'relative to the folder', input: { setting: 'bin/icm' }, want: '/ws/bin/icm', source: 'setting' },
    { name: 'relative with no folder', input: { setting: 'bin/icm', workspaceFolder: undefined }, error: /give an absolute path/ },
    { name: 'bare name is left to PATH', input: { setting: 'icm', exists: () => false }, want: 'icm', source: 'setting' },
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
