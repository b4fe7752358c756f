// Registers icm's workspace MCP server with VS Code, so the editor's agent
// sees icm's tools and resources for the open workspace with no set-up:
// it runs stages through icm (exact context, recorded runs, the gate left
// to the person). The server is the same icm binary the language server
// runs.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { launchArgs, mcpProviderId, mcpServerId, mcpServerSpec } from './mcpPresent';
import { messageOf } from './review';
import { resolveServerPath } from './serverPath';

/** The registration, and starting the server once trust is granted. */
export interface McpServer {
  disposable: vscode.Disposable;
  /** Starts the server (VS Code's MCP support may have none to start). */
  start(): Promise<void>;
}

export function registerMcpServer(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): McpServer {
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') {
    log.info('this editor has no MCP server API; icm mcp install --client vscode prints a .vscode/mcp.json instead');
    return { disposable: new vscode.Disposable(() => undefined), start: async () => undefined };
  }
  const changed = new vscode.EventEmitter<void>();
  let label: string | undefined;
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => {
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      const spec = mcpServerSpec(folders);
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
      label = spec.label;
      const def = new vscode.McpStdioServerDefinition(spec.label, command, spec.args, {}, String(context.extension.packageJSON.version ?? ''));
      def.cwd = vscode.Uri.file(folders[0]);
      return [def];
    },
    // VS Code calls this when it starts the server, after it asked for
    // the folder's trust: the editor's trust is read then.
    resolveMcpServerDefinition: (def) => {
      const args = launchArgs(def.args, vscode.workspace.isTrusted);
      log.info(`starting icm's MCP server: ${def.command} ${args.join(' ')}`);
      if (args === def.args) {
        return def;
      }
      const out = new vscode.McpStdioServerDefinition(def.label, def.command, args, def.env, def.version);
      out.cwd = def.cwd;
      return out;
    },
  };
  const start = async () => {
    if (label === undefined) {
      return;
    }
    const id = mcpServerId(context.extension.id, label);
    try {
      await vscode.commands.executeCommand('workbench.mcp.startServer', id);
      log.info(`asked VS Code to start the MCP server ${id}`);
    } catch (err) {
      // VS Code's AI features may be off: then there is no server to start.
      log.info(`the MCP server ${id} was not started: ${messageOf(err)}`);
    }
  };
  return {
    disposable: vscode.Disposable.from(
      vscode.lm.registerMcpServerDefinitionProvider(mcpProviderId, provider),
      changed,
      // The folders and the binary decide the server; trusting the folder
      // starts it.
      vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void start()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('icm.server.path')) {
          changed.fire();
        }
      }),
    ),
    start,
  };
}
