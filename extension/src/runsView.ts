// The Runs view: every run of the open workspaces, newest first, as a tree
// of stages, For each items, model calls and tool calls; selecting a model
// call opens its whole request and its reply, a tool call its arguments,
// its result and its error, read-only. The server reads
// the runs' traces (history/*.jsonl) and sends the tree as `icm history
// --run` prints it.
import * as vscode from 'vscode';
import type { PipelineModel } from './model';
import { Newest } from './newest';
import { runNodeView, runsKey, runView } from './runsPresent';
import { ServerCommand, type RunEntry, type RunNode, type RunsResult } from './protocol';
import { messageOf } from './review';
import type { IcmServer } from './server';

type Node =
  | { kind: 'run'; workspace: string; run: RunEntry }
  | { kind: 'node'; workspace: string; runId: string; node: RunNode; path: string; parent: Node };

class RunsProvider implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private runs = new Map<string, RunEntry[]>();
  /** What each way a run can end means, as the server last said. */
  private means = new Map<string, string>();

  constructor(
    private readonly server: IcmServer,
    private readonly model: PipelineModel,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** An older read that ends later is dropped. */
  private readonly reads = new Newest();

  /**
   * Reads every workspace's runs from the server again. Reads overlap (a
   * run's end and its last status each ask): only the newest is shown,
   * or a read made while the run was going, ending last, left its row
   * "running" after the run had ended.
   */
  async refresh(): Promise<void> {
    const newest = this.reads.begin();
    const next = new Map<string, RunEntry[]>();
    for (const ws of this.model.workspaces()) {
      try {
        const r = await this.server.execute<RunsResult>(ServerCommand.runs, { workspace: ws.workspace });
        next.set(ws.workspace, r.runs);
        this.means = new Map(r.outcomes.map((o) => [o.status, o.means]));
      } catch (err) {
        this.log.warn(`icm.runs ${ws.workspace}: ${messageOf(err)}`);
      }
    }
    if (!newest()) {
      return;
    }
    this.runs = next;
    this.changed.fire();
  }

  getChildren(node?: Node): Node[] {
    if (node === undefined) {
      const out: Node[] = [];
      for (const [workspace, runs] of this.runs) {
        for (const run of runs) {
          out.push({ kind: 'run', workspace, run });
        }
      }
      // Newest first across workspaces too.
      return out.sort((a, b) => (a.kind === 'run' && b.kind === 'run' ? b.run.start.localeCompare(a.run.start) : 0));
    }
    const children = node.kind === 'run' ? node.run.stages : (node.node.children ?? []);
    const runId = node.kind === 'run' ? node.run.id : node.runId;
    const base = node.kind === 'run' ? node.run.id : node.path;
    return children.map((c, i) => ({ kind: 'node', workspace: node.workspace, runId, node: c, path: `${base}/${i}`, parent: node }));
  }

  getParent(node: Node): Node | undefined {
    return node.kind === 'run' ? undefined : node.parent;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'run') {
      const v = runView(node.run, new Date(), this.means.get(node.run.status));
      const item = new vscode.TreeItem(v.label, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `${node.workspace}#${node.run.id}`;
      item.description = v.description;
      item.tooltip = new vscode.MarkdownString(v.tooltip);
      item.iconPath = new vscode.ThemeIcon(v.icon.id, v.icon.color ? new vscode.ThemeColor(v.icon.color) : undefined);
      item.contextValue = 'run';
      return item;
    }
    const v = runNodeView(node.node);
    const open = (node.node.children?.length ?? 0) > 0;
    const item = new vscode.TreeItem(v.label, open ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = `${node.workspace}#${node.path}`;
    item.description = v.description;
    item.tooltip = new vscode.MarkdownString(v.tooltip);
    item.iconPath = new vscode.ThemeIcon(v.icon.id, v.icon.color ? new vscode.ThemeColor(v.icon.color) : undefined);
    item.contextValue = `run:${node.node.kind}`;
    if ((node.node.kind === 'model' || node.node.kind === 'tool') && node.node.uri !== undefined) {
      item.command = { command: 'icm.runs.openCall', title: 'Open Call', arguments: [{ uri: node.node.uri }] };
    }
    return item;
  }
}

/** Creates the Runs view; it reads the runs again whenever a run ends. */
export function registerRunsView(server: IcmServer, model: PipelineModel, log: vscode.LogOutputChannel): {
  disposable: vscode.Disposable;
  refresh: () => Promise<void>;
  reveal: (workspace: string, runId: string) => Promise<void>;
} {
  const provider = new RunsProvider(server, model, log);
  const view = vscode.window.createTreeView('icm.runs', { treeDataProvider: provider, showCollapseAll: true });
  let seen = '';
  const sub = model.onDidChange(() => {
    const key = runsKey(model.workspaces());
    if (key !== seen) {
      seen = key;
      void provider.refresh();
    }
  });
  const reveal = async (workspace: string, runId: string) => {
    await provider.refresh();
    const node = provider.getChildren().find((n) => n.kind === 'run' && n.workspace === workspace && n.run.id === runId);
    await vscode.commands.executeCommand('icm.runs.focus');
    if (node !== undefined) {
      await view.reveal(node, { expand: 2, select: true, focus: true });
    }
  };
  return { disposable: vscode.Disposable.from(view, sub), refresh: () => provider.refresh(), reveal };
}
