// The Pipeline view: stages in order with their state, token estimate and
// last run; one workspace's stages at the top level, or one node per
// workspace when several are open; a collapsed legend of the states last.
import * as vscode from 'vscode';
import type { PipelineModel } from './model';
import { legendTooltip, stageView, statusBarView } from './present';
import type { StageStatus, WorkspaceStatus } from './protocol';

/** A tree element; commands run from the view receive it as their argument. */
export type PipelineNode =
  | { kind: 'workspace'; workspace: string }
  | { kind: 'stage'; workspace: string; stage: string }
  | { kind: 'legend'; workspace: string };

class PipelineProvider implements vscode.TreeDataProvider<PipelineNode> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly model: PipelineModel) {
    model.onDidChange(() => this.changed.fire());
  }

  getChildren(node?: PipelineNode): PipelineNode[] {
    const list = this.model.workspaces();
    const theLegend: PipelineNode = { kind: 'legend', workspace: '' };
    if (node === undefined) {
      if (list.length === 0) {
        return [];
      }
      if (list.length === 1) {
        return [...stages(list[0]), theLegend];
      }
      return [...list.map((ws): PipelineNode => ({ kind: 'workspace', workspace: ws.workspace })), theLegend];
    }
    const ws = this.model.get(node.workspace);
    return node.kind === 'workspace' && ws !== undefined ? stages(ws) : [];
  }

  getTreeItem(node: PipelineNode): vscode.TreeItem {
    if (node.kind === 'legend') {
      // One row: the states and their meanings open as a list wide enough
      // to read them (as rows, at 1280 px beside the secondary side bar,
      // the meanings were cut).
      const item = new vscode.TreeItem('Legend', vscode.TreeItemCollapsibleState.None);
      item.id = 'icm.legend';
      item.iconPath = new vscode.ThemeIcon('info');
      item.description = 'what each state means';
      item.tooltip = new vscode.MarkdownString(legendTooltip(this.model.states()));
      item.command = { command: 'icm.pipeline.showLegend', title: 'Show the Legend' };
      item.accessibilityInformation = { label: 'Legend of the stage states' };
      return item;
    }
    const ws = this.model.get(node.workspace);
    if (node.kind === 'workspace' || ws === undefined) {
      const item = new vscode.TreeItem(ws?.name ?? node.workspace, vscode.TreeItemCollapsibleState.Expanded);
      item.id = node.workspace;
      item.contextValue = 'workspace';
      if (ws !== undefined) {
        const bar = statusBarView(ws);
        item.description = bar.label;
        item.tooltip = bar.tooltip;
      }
      return item;
    }
    const st = ws.stages.find((s) => s.name === node.stage) as StageStatus;
    const v = stageView(ws, st, new Date());
    const item = new vscode.TreeItem(v.label, vscode.TreeItemCollapsibleState.None);
    item.id = v.id;
    item.description = v.description;
    item.tooltip = new vscode.MarkdownString(v.tooltip);
    item.iconPath = new vscode.ThemeIcon(v.icon.id, v.icon.color ? new vscode.ThemeColor(v.icon.color) : undefined);
    item.contextValue = v.contextValue;
    item.accessibilityInformation = { label: v.accessibleLabel };
    item.command = { command: 'icm.pipeline.openContract', title: 'Open Contract', arguments: [node] };
    return item;
  }
}

function stages(ws: WorkspaceStatus): PipelineNode[] {
  return ws.stages.map((st) => ({ kind: 'stage', workspace: ws.workspace, stage: st.name }));
}

/** Creates the view and keeps its title line current. */
export function registerPipelineView(model: PipelineModel): vscode.Disposable {
  const view = vscode.window.createTreeView('icm.pipeline', { treeDataProvider: new PipelineProvider(model) });
  const sub = model.onDidChange(() => {
    const list = model.workspaces();
    view.description = list.length === 1 ? list[0].name : undefined;
  });
  return vscode.Disposable.from(view, sub);
}
