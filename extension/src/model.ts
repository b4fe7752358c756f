// The extension's copy of what the server says about each workspace, fed by
// icm.status answers and icm/statusChanged notifications.
import { workspaceOf } from './present';
import type { StateWords, WorkspaceStatus } from './protocol';

export type Listener = () => void;

/** Holds the latest status of every workspace, in the order the server first listed them. */
export class PipelineModel {
  private readonly byRoot = new Map<string, WorkspaceStatus>();
  private legend: StateWords[] = [];
  private readonly listeners = new Set<Listener>();

  /** Every workspace, in a stable order. */
  workspaces(): WorkspaceStatus[] {
    return [...this.byRoot.values()];
  }

  get(root: string): WorkspaceStatus | undefined {
    return this.byRoot.get(root);
  }

  /** The stage states in the server's words, for the legend (icm.status sends them). */
  states(): StateWords[] {
    return this.legend;
  }

  /** Replaces everything, as after an icm.status call or a server restart. */
  replaceAll(list: WorkspaceStatus[], states: StateWords[] = this.legend): void {
    this.legend = states;
    this.byRoot.clear();
    for (const ws of list) {
      this.byRoot.set(ws.workspace, ws);
    }
    this.fire();
  }

  /** Takes one workspace's new status; a workspace seen for the first time goes last. */
  update(ws: WorkspaceStatus): void {
    this.byRoot.set(ws.workspace, ws);
    this.fire();
  }

  /** Whether file (an absolute path) is inside a workspace the model knows. */
  holds(file: string): boolean {
    return workspaceOf(this.workspaces(), file) !== undefined;
  }

  /** True while any workspace has a run going. */
  running(): boolean {
    return this.workspaces().some((ws) => ws.running !== null && ws.running !== undefined);
  }

  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private fire(): void {
    for (const l of this.listeners) {
      l();
    }
  }
}
