// Where the icm binary comes from, for the language server and the MCP
// server alike: the icm.server.path the person set in their own settings
// wins, otherwise the binary `make vsix` packaged into the extension. A
// workspace never chooses the program: the setting is machine-scoped, and
// even a value a workspace's or folder's settings file holds is not read.
import * as path from 'node:path';

/** What WorkspaceConfiguration.inspect() says of a setting, by level. */
export interface SettingLevels {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The part of vscode.WorkspaceConfiguration (of section "icm") read here. */
export interface IcmConfiguration {
  inspect(section: string): SettingLevels | undefined;
}

export interface ServerPathInput {
  /** The "icm" configuration; only its user and default levels are read. */
  config: IcmConfiguration;
  /** The extension's install folder. */
  extensionPath: string;
  platform: string;
  homeDir: string;
  exists: (file: string) => boolean;
}

export interface ServerPath {
  command: string;
  source: 'setting' | 'bundled';
}

/**
 * The icm.server.path the person chose: their user (or remote machine)
 * settings, else the default; never a workspace's or a folder's.
 */
export function chosenServerPath(config: IcmConfiguration): string {
  const levels = config.inspect('server.path');
  for (const v of [levels?.globalValue, levels?.defaultValue]) {
    if (typeof v === 'string') {
      return v;
    }
  }
  return '';
}

/** Resolves the server command, or throws an Error that says what to set. */
export function resolveServerPath(input: ServerPathInput): ServerPath {
  const setting = chosenServerPath(input.config).trim();
  if (setting !== '') {
    return { command: resolveSetting(setting, input), source: 'setting' };
  }
  const exe = input.platform === 'win32' ? 'icm.exe' : 'icm';
  const bundled = path.join(input.extensionPath, 'extension', 'bin', exe);
  if (!input.exists(bundled)) {
    throw new Error(
      `no icm binary is packaged with this extension (looked for ${bundled}); ` +
        'set icm.server.path in your user settings to an icm binary, or build the extension with `make vsix`',
    );
  }
  return { command: bundled, source: 'bundled' };
}

// One program for every folder: an absolute path, one from the home
// folder, or a bare name found on PATH. A path that depends on the folder
// open (relative, ${workspaceFolder}) would let that folder choose it.
function resolveSetting(setting: string, input: ServerPathInput): string {
  if (setting.includes('${workspaceFolder}')) {
    throw new Error(`icm.server.path is "${setting}", but the program icm starts cannot depend on the folder open; give an absolute path`);
  }
  let p = setting;
  if (p === '~' || p.startsWith('~/')) {
    p = path.join(input.homeDir, p.slice(1));
  }
  // A bare name such as "icm" is looked up on PATH when the server starts.
  if (!p.includes('/') && !p.includes('\\')) {
    return p;
  }
  if (!path.isAbsolute(p)) {
    throw new Error(`icm.server.path "${setting}" is relative, and the program icm starts cannot depend on the folder open; give an absolute path`);
  }
  if (!input.exists(p)) {
    throw new Error(`icm.server.path is "${setting}", but ${p} does not exist; fix the setting or clear it to use the packaged binary`);
  }
  return p;
}
