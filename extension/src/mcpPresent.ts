// What the extension registers with VS Code's MCP support: icm's workspace
// server for the open folders. Plain data out, so it is tested without
// VS Code.

/** The provider id in package.json's contributes.mcpServerDefinitionProviders. */
export const mcpProviderId = 'icm.workspace';

export interface McpServerSpec {
  label: string;
  args: string[];
}

/**
 * The server for the open folders: `icm mcp workspace FOLDER...`. It is
 * the same whether VS Code trusts the folder or not: VS Code stops a
 * server whose definition changes, and a definition that changed when
 * the folder was trusted stopped the server "Trust Folder & Continue" was
 * starting. None when no folder is open.
 */
export function mcpServerSpec(folders: string[]): McpServerSpec | undefined {
  if (folders.length === 0) {
    return undefined;
  }
  return { label: 'icm', args: ['mcp', 'workspace', ...folders] };
}

/**
 * The arguments a server is started with, decided when VS Code starts it
 * (after it asked for the folder's trust): read-only (--restricted) while
 * VS Code is in Restricted Mode, which icm never overrides.
 */
export function launchArgs(args: string[], editorTrusted: boolean): string[] {
  return editorTrusted || args.includes('--restricted') ? args : [...args, '--restricted'];
}

/** The id VS Code gives a provider's server: the extension's id in lower case, a slash, its label. */
export function mcpServerId(extensionId: string, label: string): string {
  return `${extensionId.toLowerCase()}/${label}`;
}
