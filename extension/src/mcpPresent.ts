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
 * The server for the open folders: `icm mcp workspace FOLDER...`, read-only
 * (--restricted) while VS Code is in Restricted Mode, which icm never
 * overrides. None when no folder is open.
 */
export function mcpServerSpec(folders: string[], editorTrusted: boolean): McpServerSpec | undefined {
  if (folders.length === 0) {
    return undefined;
  }
  const args = ['mcp', 'workspace', ...folders];
  if (!editorTrusted) {
    args.push('--restricted');
  }
  return { label: 'icm', args };
}
