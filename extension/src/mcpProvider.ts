// Registers icm's workspace MCP server with VS Code, so the editor's agent
// sees icm's tools and resources for the open workspace with no set-up:
// it runs stages through icm (exact context, recorded runs, the gate left
// to the person). The server is the same icm binary the language server
// runs.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { mcpProviderId, mcpServerSpec } from './mcpPresent';
import { messageOf } from './review';
import { resolveServerPath } from './serverPath';

export function registerMcpServer(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): vscode.Disposable {
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') {
    log.info('this editor has no MCP server API; icm mcp install --client vscode prints a .vscode/mcp.json instead');
    return new vscode.Disposable(() => undefined);
  }
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      const spec = mcpServerSpec(folders, vscode.workspace.isTrusted);
      if (spec === undefined) {
        return [];
      }
      let command: string;
      try {
        command = resolveServerPath({
          config: vscode.workspace.getConfiguration('icm'),
          extensionPath: context.extensionPath,
          platform: process.platform,
          homeDir: os.homedir(),
          exists: (p) => fs.existsSync(p),
        }).command;
      } catch (err) {
        log.warn(`no icm MCP server: ${messageOf(err)}`);
        return [];
      }
      const def = new vscode.McpStdioServerDefinition(spec.label, command, spec.args, {}, String(context.extension.packageJSON.version ?? ''));
      def.cwd = vscode.Uri.file(folders[0]);
      return [def];
    },
  };
  return vscode.Disposable.from(
    vscode.lm.registerMcpServerDefinitionProvider(mcpProviderId, provider),
    changed,
    // The folders, the binary and the editor's trust decide the server.
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('icm.server.path')) {
        changed.fire();
      }
    }),
  );
}
