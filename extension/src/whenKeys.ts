// Sets the context keys the manifest's when clauses read (contextKeys.ts
// says what each means): the palette's Re-run This Item in a For each
// output, and the walkthrough's steps that follow the workspace.
import * as vscode from 'vscode';
import { setupKeys, statusKeys } from './contextKeys';
import type { PipelineModel } from './model';
import { ServerCommand, type SetupPlan } from './protocol';
import { messageOf } from './review';
import type { IcmServer } from './server';

export function registerWhenKeys(server: IcmServer, model: PipelineModel, log: vscode.LogOutputChannel): { disposable: vscode.Disposable; setupChanged: () => void } {
  const sent = new Map<string, boolean>();
  const apply = (keys: Record<string, boolean>) => {
    for (const [key, value] of Object.entries(keys)) {
      if (sent.get(key) !== value) {
        sent.set(key, value);
        void vscode.commands.executeCommand('setContext', key, value);
      }
    }
  };
  const fromStatus = () => apply(statusKeys(model.workspaces(), vscode.window.activeTextEditor?.document.uri.fsPath));

  // The setup questions change with config.toml and the questionnaire,
  // not with every status: they are asked again when the workspaces, or
  // those files, change.
  let roots = '';
  let asking = false;
  let again = false;
  const fromSetup = async () => {
    if (asking) {
      again = true;
      return;
    }
    asking = true;
    try {
      const plans: { all: SetupPlan; open: SetupPlan }[] = [];
      for (const ws of model.workspaces()) {
        try {
          const all = await server.execute<SetupPlan>(ServerCommand.setupPlan, { workspace: ws.workspace, all: true });
          const open = await server.execute<SetupPlan>(ServerCommand.setupPlan, { workspace: ws.workspace });
          plans.push({ all, open });
        } catch (err) {
          log.warn(`icm.setupPlan ${ws.workspace}: ${messageOf(err)}`);
        }
      }
      apply(setupKeys(plans));
    } finally {
      asking = false;
      if (again) {
        again = false;
        void fromSetup();
      }
    }
  };
  const changed = () => {
    fromStatus();
    const now = model.workspaces().map((w) => w.workspace).join('\n');
    if (now !== roots) {
      roots = now;
      void fromSetup();
    }
  };
  fromStatus();
  return {
    disposable: vscode.Disposable.from(
      model.onDidChange(changed),
      vscode.window.onDidChangeActiveTextEditor(fromStatus),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (/(^|[\\/])(config\.toml|questionnaire\.md)$/.test(doc.uri.fsPath)) {
          void fromSetup();
        }
      }),
    ),
    setupChanged: () => void fromSetup(),
  };
}
