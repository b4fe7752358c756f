// The extension's composition root: it starts `icm lsp` and wires the
// Pipeline view, status bar, commands and review flow to it.
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { ContextPreview } from './contextPreview';
import { registerMcpServer } from './mcpProvider';
import { PipelineModel } from './model';
import { registerPipelineView } from './pipelineView';
import { ReviewFlow } from './reviewFlow';
import { registerRunsView } from './runsView';
import { IcmServer } from './server';
import { registerStatusBar } from './statusBar';
import { TestExplorer } from './testExplorer';
import { TestCommand } from './testProtocol';
import { ServerCommand } from './protocol';
import { TrustFlow } from './trust';
import { registerVirtualDocs } from './virtualDocs';
import { registerWhenKeys } from './whenKeys';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('ICM', { log: true });
  const model = new PipelineModel();
  const server = new IcmServer(context, log, model);
  const runs = registerRunsView(server, model, log);
  const docs = registerVirtualDocs(server);
  const review = new ReviewFlow(server, log, model, runs.reveal);
  const tests = new TestExplorer(server, log);
  const mcp = registerMcpServer(context, log);
  // Once icm trusts a workspace, the agents' server may run its stages.
  const trust = new TrustFlow(server, model, log, () => mcp.start());
  const preview = new ContextPreview(server, log);
  const keys = registerWhenKeys(server, model, log);
  server.setHooks({
    runFinished: (ev) => {
      // Every run that ends is listed, even one that changed no stage's
      // state (refused before any work, with the last good run kept).
      void runs.refresh();
      void review.runFinished(ev);
    },
    command: (command, args, next) => {
      // The ▶ Test lens runs its stage's cases in the Test Explorer.
      const a = (args[0] ?? {}) as { workspace?: string; stage?: string; token?: string };
      if (command === TestCommand.run && a.workspace && a.stage && a.token === undefined) {
        return tests.runStage(a.workspace, a.stage).catch((err) => review.showError(err, a.workspace));
      }
      // The lens on an untrusted stage shows what trust covers and asks.
      if (command === ServerCommand.trustList && a.workspace) {
        return trust.trust(a.workspace).catch((err) => review.showError(err, a.workspace));
      }
      // The assembled context opens as a readable preview.
      if (command === ServerCommand.probe && a.workspace && a.stage) {
        const item = (args[0] as { item?: number }).item;
        return preview.show(a.workspace, a.stage, item).catch((err) => review.showError(err, a.workspace));
      }
      return review.interceptCommand(command, args, next);
    },
    virtualDocumentChanged: (uri) => {
      docs.changed(uri);
      void preview.changed(uri);
    },
  });
  // Cases come and go with the workspaces' files; the list follows the status.
  const testsFollow = model.onDidChange(() => tests.refreshSoon());
  const running = model.onDidChange(() => {
    void vscode.commands.executeCommand('setContext', 'icm.running', model.running());
  });
  context.subscriptions.push(
    log,
    server,
    tests,
    trust,
    testsFollow,
    running,
    registerPipelineView(model),
    runs.disposable,
    docs.disposable,
    registerStatusBar(model),
    registerCommands({ server, model, review, log, runs, preview, setupChanged: keys.setupChanged }),
    mcp.disposable,
    preview,
    keys.disposable,
  );
  // Activation does not wait for the server: commands work (and say what is
  // wrong) even when it fails to start. Disposing the subscriptions stops it.
  void server.start();
}
