// How workspace and stage states read in the Pipeline view and the status
// bar. Plain data out, so the wording is tested without VS Code.
import type { StageState, StageStatus, WorkspaceStatus } from './protocol';

const labels: Record<StageState, string> = {
  pending: 'pending',
  running: 'running',
  'awaiting-review': 'awaiting review',
  approved: 'approved',
  stale: 'stale',
  failed: 'failed',
  invalid: 'has errors',
};

/** Codicon ids and theme colours, so a state reads at a glance. */
const icons: Record<StageState, { id: string; color?: string }> = {
  pending: { id: 'circle-large-outline' },
  running: { id: 'sync~spin' },
  'awaiting-review': { id: 'eye', color: 'charts.yellow' },
  approved: { id: 'pass-filled', color: 'testing.iconPassed' },
  stale: { id: 'history', color: 'charts.orange' },
  failed: { id: 'error', color: 'testing.iconFailed' },
  invalid: { id: 'warning', color: 'problemsWarningIcon.foreground' },
};

/** The words for a state; an unknown state from a newer server reads as itself. */
export function stateLabel(state: string): string {
  return labels[state as StageState] ?? state;
}

/** "~819 tokens" or "~12.3k tokens"; undefined when the server gave none. */
export function formatTokens(tokens: number | undefined): string | undefined {
  if (tokens === undefined || tokens < 0 || !Number.isFinite(tokens)) {
    return undefined;
  }
  if (tokens < 1000) {
    return `~${Math.round(tokens)} tokens`;
  }
  const k = tokens / 1000;
  return `~${k < 100 ? k.toFixed(1).replace(/\.0$/, '') : Math.round(k)}k tokens`;
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "ran 10:04" today, "ran Nov 28 10:04" before, in local time. */
export function formatRunTime(iso: string | undefined, now: Date): string | undefined {
  if (iso === undefined || iso === '') {
    return undefined;
  }
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) {
    return undefined;
  }
  const hm = `${String(t.getHours()).padStart(2, '0')}:${String(t.getMinutes()).padStart(2, '0')}`;
  const sameDay =
    t.getFullYear() === now.getFullYear() && t.getMonth() === now.getMonth() && t.getDate() === now.getDate();
  if (sameDay) {
    return `ran ${hm}`;
  }
  const year = t.getFullYear() === now.getFullYear() ? '' : ` ${t.getFullYear()}`;
  return `ran ${months[t.getMonth()]} ${t.getDate()}${year} ${hm}`;
}

/** A stage's state, counting the workspace's running field (the stage list may lag it). */
export function effectiveState(ws: WorkspaceStatus, st: StageStatus): StageState {
  return ws.running?.stage === st.name ? 'running' : st.status;
}

/** "[2/5]" while a For each runs an item, else "". */
export function itemProgress(ws: WorkspaceStatus, stage: string): string {
  const r = ws.running;
  if (r === null || r === undefined || r.stage !== stage) {
    return '';
  }
  if (r.items === undefined || r.items <= 0 || r.item === undefined || r.item <= 0) {
    return '';
  }
  return `[${r.item}/${r.items}]`;
}

export interface StageView {
  id: string;
  label: string;
  description: string;
  /** Markdown. */
  tooltip: string;
  icon: { id: string; color?: string };
  /** "stage:<state>" plus ":output" when an output may be opened; the menus' when clauses match it. */
  contextValue: string;
  accessibleLabel: string;
}

/** What the Pipeline view shows for one stage. */
export function stageView(ws: WorkspaceStatus, st: StageStatus, now: Date): StageView {
  const state = effectiveState(ws, st);
  const tokens = formatTokens(st.tokens);
  const ran = formatRunTime(st.lastRun, now);
  const item = itemProgress(ws, st.name);
  const parts = [item === '' ? stateLabel(state) : `${stateLabel(state)} ${item}`];
  if (st.verifyFailed === true && state === 'awaiting-review') {
    parts[0] += ', Verify failed';
  }
  if (tokens !== undefined) {
    parts.push(tokens);
  }
  if (ran !== undefined) {
    parts.push(ran);
  }
  const hasOutput = st.lastRun !== undefined && st.lastRun !== '' && (st.outputs?.length ?? 0) > 0;
  const tip = [`**${st.name}**: ${stateLabel(state)}`];
  if (st.reason !== undefined && st.reason !== '' && st.reason !== stateLabel(state)) {
    tip.push(escapeMarkdown(st.reason));
  }
  if (tokens !== undefined) {
    tip.push(`Context: ${tokens}`);
  }
  if (ran !== undefined) {
    tip.push(`Last run: ${new Date(st.lastRun as string).toLocaleString()}`);
  }
  return {
    id: `${ws.workspace}#${st.name}`,
    label: st.name,
    description: parts.join(' · '),
    tooltip: tip.join('\n\n'),
    icon: icons[state] ?? { id: 'question' },
    contextValue: `stage:${state}${hasOutput ? ':output' : ''}`,
    accessibleLabel: `${st.name}, ${parts.join(', ')}`,
  };
}

const nextWords: Partial<Record<StageState, string>> = {
  pending: 'ready to run',
  stale: 'stale, runs again',
  failed: 'failed, runs again',
  invalid: 'has errors',
  'awaiting-review': 'awaiting review',
};

export interface StatusBarView {
  /** A codicon id. */
  icon: string;
  /** "01-scope awaiting review". */
  label: string;
  tooltip: string;
}

/** The status bar's one line: what runs now, or the workspace's next step. */
export function statusBarView(ws: WorkspaceStatus): StatusBarView {
  const tooltip = `ICM ${ws.name}: ${ws.next?.message ?? 'no next step'}`;
  const running = ws.running;
  if (running !== null && running !== undefined) {
    const item = itemProgress(ws, running.stage);
    return { icon: 'sync~spin', label: `${running.stage} running${item === '' ? '' : ` ${item}`}`, tooltip };
  }
  const next = ws.next;
  if (next === undefined || next.action === 'done' || next.stage === undefined || next.stage === '') {
    return { icon: 'pass', label: 'all stages approved', tooltip };
  }
  const st = ws.stages.find((s) => s.name === next.stage);
  const words = (st && nextWords[st.status]) ?? next.action;
  const icon = next.action === 'approve' ? 'eye' : next.action === 'fix' ? 'warning' : 'play';
  return { icon, label: `${next.stage} ${words}`, tooltip };
}

/**
 * The workspace a file belongs to: the deepest root that holds it. Roots and
 * the file are absolute paths in the server's spelling.
 */
export function workspaceOf(list: WorkspaceStatus[], file: string | undefined): WorkspaceStatus | undefined {
  if (file === undefined) {
    return undefined;
  }
  let best: WorkspaceStatus | undefined;
  for (const ws of list) {
    const root = ws.workspace.replace(/[\\/]+$/, '');
    const inside = file === root || file.startsWith(root + '/') || file.startsWith(root + '\\');
    if (inside && (best === undefined || root.length > best.workspace.length)) {
      best = ws;
    }
  }
  return best;
}

/** The stage whose folder holds file, if any. */
export function stageOf(ws: WorkspaceStatus, file: string | undefined): StageStatus | undefined {
  if (file === undefined) {
    return undefined;
  }
  return ws.stages.find((st) => {
    const dir = st.contract.replace(/[\\/][^\\/]*$/, '');
    return file.startsWith(dir + '/') || file.startsWith(dir + '\\');
  });
}

function escapeMarkdown(s: string): string {
  return s.replace(/([\\`*_{}[\]<>()#+!|])/g, '\\$1');
}

/**
 * Orders stages for a picker: the one being edited first, then the
 * workspace's next stage, then the rest in pipeline order.
 */
export function pickOrder(ws: WorkspaceStatus, candidates: StageStatus[], activeFile: string | undefined): StageStatus[] {
  const first = [stageOf(ws, activeFile)?.name, ws.next?.stage].filter((n): n is string => n !== undefined);
  const rank = (st: StageStatus) => {
    const i = first.indexOf(st.name);
    return i === -1 ? first.length : i;
  };
  return candidates
    .map((st, i) => ({ st, i }))
    .sort((a, b) => rank(a.st) - rank(b.st) || a.i - b.i)
    .map((x) => x.st);
}
