// Starts, restarts and talks to `icm lsp`. Everything the extension asks of
// icm goes through execute(); state comes back as notifications.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type WorkspaceEdit,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { presentLens } from './lensMenu';
import { PipelineModel } from './model';
import { RunProgressFeature } from './progressFeature';
import {
  ClientNotification,
  ServerCommand,
  ServerNotification,
  type DocumentEdit,
  type RunFinished,
  type StatusResult,
  type WorkspaceStatus,
} from './protocol';
import { messageOf } from './review';
import { resolveServerPath } from './serverPath';
import { serverSettingKeys, serverSettings } from './settings';
import { checkServerVersion } from './version';

/** Handles a server command that a code lens or code action runs; next sends it as it is. */
export type CommandInterceptor = (
  command: string,
  args: unknown[],
  next: (command: string, args: unknown[]) => Promise<unknown>,
) => Promise<unknown>;

export interface ServerHooks {
  runFinished(ev: RunFinished): void;
  command: CommandInterceptor;
  /** A read-only document the server provides changed. */
  virtualDocumentChanged?(uri: string): void;
}

export class IcmServer implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private hooks: ServerHooks | undefined;
  /** Handlers of other notifications, registered on every client started. */
  private readonly handlers = new Map<string, Set<(params: unknown) => void>>();
  private command: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly model: PipelineModel,
  ) {
    this.disposables.push(vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)));
  }

  /** Connects the review flow; called once before start. */
  /** Receives a server notification (from this and every later client). */
  onNotification<T>(method: string, handler: (params: T) => void): vscode.Disposable {
    const set = this.handlers.get(method) ?? new Set();
    const h = handler as (params: unknown) => void;
    set.add(h);
    if (!this.handlers.has(method)) {
      this.handlers.set(method, set);
      this.client?.onNotification(method, (params: unknown) => this.dispatch(method, params));
    }
    return new vscode.Disposable(() => set.delete(h));
  }

  private dispatch(method: string, params: unknown): void {
    for (const h of this.handlers.get(method) ?? []) {
      try {
        h(params);
      } catch (err) {
        this.log.error(`${method}: ${messageOf(err)}`);
      }
    }
  }

  setHooks(hooks: ServerHooks): void {
    this.hooks = hooks;
  }

  /** Starts the server; failures are shown and logged, not thrown. */
  async start(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    let command: string;
    try {
      const resolved = resolveServerPath({
        config: vscode.workspace.getConfiguration('icm'),
        extensionPath: this.context.extensionPath,
        platform: process.platform,
        homeDir: os.homedir(),
        exists: (p) => fs.existsSync(p),
      });
      command = resolved.command;
      this.command = command;
      this.log.info(`starting ${command} lsp (${resolved.source === 'setting' ? 'from icm.server.path' : 'packaged'})`);
    } catch (err) {
      this.fail(`Cannot start the ICM language server: ${messageOf(err)}`);
      return;
    }
    // No transport: the client would add a --stdio flag that icm lsp does not take.
    const run = { command, args: ['lsp'], options: { cwd: folder } };
    const serverOptions: ServerOptions = { run, debug: run };
    const clientOptions: LanguageClientOptions = {
      // Contracts and outputs, and each workspace's config.toml (which
      // VS Code opens as plain text: no TOML language is built in).
      documentSelector: [
        { scheme: 'file', language: 'markdown' },
        { scheme: 'file', pattern: '**/config.toml' },
      ],
      outputChannel: this.log,
      // The server's log lines come as window/logMessage with their level,
      // not as stderr (which the output channel would show as errors).
      // The editor's Restricted Mode lowers icm's trust (never raises it).
      initializationOptions: { ...this.settings(), logToClient: true, workspaceTrusted: vscode.workspace.isTrusted },
      synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{md,toml}') },
      middleware: {
        // The server finds the workspaces below the editor's folder in the
        // background, after the first icm.status here may have listed none
        // (a repository holding several): diagnostics for a file of no
        // known workspace say there are more to ask for.
        handleDiagnostics: (uri, diagnostics, next) => {
          next(uri, diagnostics);
          if (uri.scheme === 'file' && !this.model.holds(uri.fsPath)) {
            this.refreshSoon();
          }
        },
        // A state lens opens the rest of its line's actions and shows the
        // state in full on hover (a line holds at most two short lenses).
        provideCodeLenses: async (doc, token, next) => {
          const lenses = await next(doc, token);
          for (const l of lenses ?? []) {
            if (l.command !== undefined) {
              l.command = presentLens(l.command);
            }
          }
          return lenses;
        },
        executeCommand: (cmd, args, next) => {
          const forward = async (c: string, a: unknown[]) => next(c, a);
          return this.hooks ? this.hooks.command(cmd, args, forward) : forward(cmd, args);
        },
      },
    };
    const client = new LanguageClient('icm', 'ICM Language Server', serverOptions, clientOptions);
    client.registerFeature(new RunProgressFeature(client));
    client.onNotification(ServerNotification.statusChanged, (ws: WorkspaceStatus) => this.model.update(ws));
    client.onNotification(ServerNotification.runFinished, (ev: RunFinished) => this.hooks?.runFinished(ev));
    for (const method of this.handlers.keys()) {
      client.onNotification(method, (params: unknown) => this.dispatch(method, params));
    }
    client.onNotification(ServerNotification.virtualDocumentChanged, (p: { uri: string }) => this.hooks?.virtualDocumentChanged?.(p.uri));
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      this.fail(`The ICM language server (${command} lsp) did not start: ${messageOf(err)}`);
      return;
    }
    if (!this.checkVersion(client, command)) {
      // A server of another version speaks another protocol: the views
      // would show what it does not send, or miss what it does.
      await this.stop();
      return;
    }
    await this.refresh();
  }

  /** Stops the server and starts it again, reading icm.server.path anew. */
  async restart(): Promise<void> {
    await this.stop();
    this.model.replaceAll([]);
    await this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) {
      return;
    }
    try {
      await client.stop();
    } catch (err) {
      this.log.warn(`stopping the language server: ${messageOf(err)}`);
    }
  }

  /** The icm executable the server runs from, once it was found. */
  executable(): string | undefined {
    return this.command;
  }

  /** Runs one of the server's icm.* commands with one argument object. */
  async execute<T>(command: string, args: object = {}): Promise<T> {
    const client = this.client;
    if (client === undefined || !client.isRunning()) {
      throw new Error('the icm language server is not running; see ICM: Show Logs, or run ICM: Restart Server');
    }
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] })) as T;
  }

  /** An edit the server computed (icm.editConfig's), in VS Code's terms. */
  async asWorkspaceEdit(edit: DocumentEdit): Promise<vscode.WorkspaceEdit> {
    const client = this.client;
    if (client === undefined) {
      throw new Error('the icm language server is not running; see ICM: Show Logs, or run ICM: Restart Server');
    }
    return client.protocol2CodeConverter.asWorkspaceEdit(edit as WorkspaceEdit);
  }

  /** Asks for the status once a burst of diagnostics is over, at most once a second. */
  private refreshSoon(): void {
    if (this.refreshTimer !== undefined) {
      return;
    }
    this.refreshTimer = setTimeout(() => {
      void this.refresh().finally(() => {
        this.refreshTimer = undefined;
      });
    }, 1000);
  }

  /** Asks the server for every workspace's status. */
  async refresh(): Promise<void> {
    try {
      const result = await this.execute<StatusResult>(ServerCommand.status, {});
      this.model.replaceAll(result.workspaces, result.states);
    } catch (err) {
      this.log.error(`icm.status: ${messageOf(err)}`);
    }
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
    void this.stop();
  }

  private settings() {
    const cfg = vscode.workspace.getConfiguration('icm');
    return serverSettings(
      (key) => cfg.get(key),
      (key) => cfg.inspect(key),
    );
  }

  /** Tells the server whether VS Code trusts the folder now. */
  async notifyTrust(trusted: boolean): Promise<void> {
    const client = this.client;
    if (client !== undefined && client.isRunning()) {
      await client.sendNotification(ClientNotification.didChangeWorkspaceTrust, { trusted });
    }
  }

  /** Whether the server speaks this extension's protocol; when not, says so and what to do. */
  private checkVersion(client: LanguageClient, command: string): boolean {
    const expected = String(this.context.extension.packageJSON?.icm?.serverVersion ?? '');
    const actual = client.initializeResult?.serverInfo?.version;
    const check = checkServerVersion(expected, actual);
    if (check.ok) {
      this.log.info(`server ${command} version ${actual}`);
      return true;
    }
    const text = `${check.reason.charAt(0).toUpperCase()}${check.reason.slice(1)}, so ICM stopped it (${command}). Set icm.server.path to a matching icm, or clear it to use the packaged one; then run ICM: Restart Server.`;
    this.log.error(text);
    void vscode.window.showErrorMessage(text, 'Open Settings', 'Show Logs').then((choice) => {
      if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'icm.server.path');
      } else if (choice === 'Show Logs') {
        this.log.show();
      }
    });
    return false;
  }

  private configurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (e.affectsConfiguration('icm.server.path')) {
      void vscode.window
        .showInformationMessage('The ICM server path changed. Restart the language server now?', 'Restart')
        .then((choice) => (choice === 'Restart' ? this.restart() : undefined));
      return;
    }
    if (!serverSettingKeys.some((k) => e.affectsConfiguration(`icm.${k}`))) {
      return;
    }
    const client = this.client;
    if (client !== undefined && client.isRunning()) {
      void client.sendNotification(DidChangeConfigurationNotification.type, { settings: { icm: this.settings() } });
    }
  }

  private fail(text: string): void {
    this.log.error(text);
    void vscode.window.showErrorMessage(text, 'Show Logs', 'Open Settings').then((choice) => {
      if (choice === 'Show Logs') {
        this.log.show();
      } else if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'icm.server');
      }
    });
  }
}
