// Where the language server binary comes from: the icm.server.path setting
// wins, otherwise the binary `make vsix` packaged into the extension.
import * as path from 'node:path';

export interface ServerPathInput {
  /** The icm.server.path setting, possibly empty. */
  setting: string;
  /** The extension's install folder. */
  extensionPath: string;
  platform: string;
  homeDir: string;
  /** The first workspace folder, for relative settings and ${workspaceFolder}. */
  workspaceFolder?: string;
  exists: (file: string) => boolean;
}

export interface ServerPath {
  command: string;
  source: 'setting' | 'bundled';
}

/** Resolves the server command, or throws an Error that says what to set. */
export function resolveServerPath(input: ServerPathInput): ServerPath {
  const setting = input.setting.trim();
  if (setting !== '') {
    return { command: resolveSetting(setting, input), source: 'setting' };
  }
  const exe = input.platform === 'win32' ? 'icm.exe' : 'icm';
  const bundled = path.join(input.extensionPath, 'extension', 'bin', exe);
  if (!input.exists(bundled)) {
    throw new Error(
      `no icm binary is packaged with this extension (looked for ${bundled}); ` +
        'set icm.server.path to an icm binary, or build the extension with `make vsix`',
    );
  }
  return { command: bundled, source: 'bundled' };
}

function resolveSetting(setting: string, input: ServerPathInput): string {
  let p = setting;
  if (p.includes('${workspaceFolder}')) {
    if (input.workspaceFolder === undefined) {
      throw new Error(`icm.server.path is "${setting}" but no folder is open to fill in \${workspaceFolder}`);
    }
    p = p.split('${workspaceFolder}').join(input.workspaceFolder);
  }
  if (p === '~' || p.startsWith('~/')) {
    p = path.join(input.homeDir, p.slice(1));
  }
  // A bare name such as "icm" is looked up on PATH when the server starts.
  if (!p.includes('/') && !p.includes('\\')) {
    return p;
  }
  if (!path.isAbsolute(p)) {
    if (input.workspaceFolder === undefined) {
      throw new Error(`icm.server.path "${setting}" is relative but no folder is open; give an absolute path`);
    }
    p = path.join(input.workspaceFolder, p);
  }
  if (!input.exists(p)) {
    throw new Error(`icm.server.path is "${setting}", but ${p} does not exist; fix the setting or clear it to use the packaged binary`);
  }
  return p;
}
