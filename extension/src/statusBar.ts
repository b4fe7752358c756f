// The status bar item: the current workspace's next step, or the run going.
import * as vscode from 'vscode';
import type { PipelineModel } from './model';
import { statusBarView, workspaceOf } from './present';

export function registerStatusBar(model: PipelineModel): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('icm.next', vscode.StatusBarAlignment.Left, 10);
  item.name = 'ICM';
  item.command = 'icm.pipeline.showStatus';
  const update = () => {
    const list = model.workspaces();
    const active = vscode.window.activeTextEditor?.document.uri.fsPath;
    const ws = workspaceOf(list, active) ?? list.find((w) => w.running) ?? list[0];
    if (ws === undefined) {
      item.hide();
      return;
    }
    const v = statusBarView(ws);
    item.text = `$(${v.icon}) ${v.label}`;
    item.tooltip = v.tooltip;
    item.color = v.color !== undefined ? new vscode.ThemeColor(v.color) : undefined;
    item.command = v.command ?? 'icm.pipeline.showStatus';
    item.show();
  };
  update();
  return vscode.Disposable.from(
    item,
    model.onDidChange(update),
    vscode.window.onDidChangeActiveTextEditor(update),
  );
}
