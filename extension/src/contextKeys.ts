// The context keys the manifest's when clauses read: which palette
// commands show, and which walkthrough steps show and are done. Plain
// data out, so what each key means is tested without VS Code.
import { stageOf, workspaceOf } from './present';
import type { SetupPlan, WorkspaceStatus } from './protocol';

/** The keys, as package.json names them. */
export const ContextKey = {
  /** The active editor is the output of a For each stage: Re-run This Item applies. */
  itemOutput: 'icm.itemOutput',
  /** A stage of an open workspace has run (its output was written). */
  stageRan: 'icm.stageRan',
  /** A stage of an open workspace is approved. */
  stageApproved: 'icm.stageApproved',
  /** A workspace asks setup questions (a questionnaire, or setup-time variables). */
  hasSetup: 'icm.hasSetup',
  /** Every setup question of the workspaces that have some is answered. */
  setupDone: 'icm.setupDone',
} as const;

/** The keys the workspaces' status decides, with the active editor's file. */
export function statusKeys(list: WorkspaceStatus[], activeFile: string | undefined): Record<string, boolean> {
  const stages = list.flatMap((ws) => ws.stages);
  const ws = workspaceOf(list, activeFile);
  const st = ws !== undefined ? stageOf(ws, activeFile) : undefined;
  return {
    [ContextKey.itemOutput]: st !== undefined && (st.items ?? -1) >= 0 && (st.outputs ?? []).includes(activeFile ?? ''),
    [ContextKey.stageRan]: stages.some((s) => (s.lastRun ?? '') !== ''),
    [ContextKey.stageApproved]: stages.some((s) => s.status === 'approved' || s.kept === 'approved'),
  };
}

/**
 * The keys the setup questions decide: all is a workspace's plan with
 * the questions answered already, open without them (icm.setupPlan with
 * and without all).
 */
export function setupKeys(plans: { all: SetupPlan; open: SetupPlan }[]): Record<string, boolean> {
  const having = plans.filter((p) => (p.all.questionnaire ?? '') !== '' || p.all.asks.length > 0);
  return {
    [ContextKey.hasSetup]: having.length > 0,
    [ContextKey.setupDone]: having.length > 0 && having.every((p) => p.open.asks.length === 0),
  };
}
