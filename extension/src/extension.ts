// The extension's composition root: it starts `icm lsp` and wires the
// Pipeline view, status bar, commands and review flow to it.
import * as vscode from 'vscode';
import { registerCommands } from './commands';
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

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('ICM', { log: true });
  const model = new PipelineModel();
  const server = new IcmServer(context, log, model);
  const runs = registerRunsView(server, model, log);
  const docs = registerVirtualDocs(server);
  const review = new ReviewFlow(server, log, model, runs.reveal);
  const tests = new TestExplorer(server, log);
  const trust = new TrustFlow(server, model, log);
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
      return review.interceptCommand(command, args, next);
    },
    virtualDocumentChanged: docs.changed,
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
    registerCommands({ server, model, review, log, runs }),
    registerMcpServer(context, log),
  );
  // Activation does not wait for the server: commands work (and say what is
  // wrong) even when it fails to start. Disposing the subscriptions stops it.
  void server.start();
}
