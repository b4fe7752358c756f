// How workspace and stage states read in the Pipeline view and the status
// bar: the server's faces and words (state.FaceOf, docs/vocabulary.md),
// laid out for each place. Plain data out, so the wording is tested
// without VS Code.
import { formatMoment, formatTime } from './format';
import { gateMarkdown } from './gate';
import type { ModelStatus, NextStep, StageFace, StageState, StageStatus, StateWords, WorkspaceStatus } from './protocol';

/** The face in one line: "approved · last re-run failed: ...". */
export function faceText(f: StageFace): string {
  return f.detail !== undefined && f.detail !== '' ? `${f.label} · ${f.detail}` : f.label;
}

/** "ran 10:04" today, "ran Nov 28 10:04" before, in local time. */
export function formatRunTime(iso: string | undefined, now: Date): string | undefined {
  const t = parseTime(iso);
  return t === undefined ? undefined : `ran ${formatTime(t, now)}`;
}

/** An RFC 3339 time from the server, or undefined when there is none. */
export function parseTime(iso: string | undefined): Date | undefined {
  if (iso === undefined || iso === '') {
    return undefined;
  }
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? undefined : t;
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

/**
 * What the Pipeline view shows for one stage: the state's word (and, for
 * the stage running, the running record's count), so the row reads whole
 * in a narrow side bar (at 1280 px beside the secondary side bar, about
 * 300 px); the rest is in the tooltip and the screen reader's label.
 */
export function stageView(ws: WorkspaceStatus, st: StageStatus, now: Date): StageView {
  const state = st.status;
  const face = st.face;
  const tokens = st.context !== undefined && st.context !== '' ? st.context : undefined;
  const ran = formatRunTime(st.lastRun, now);
  const count = state === 'running' && ws.running?.stage === st.name ? ws.running.count : undefined;
  const shown = count !== undefined && count !== '' ? `${face.label} · ${count}` : face.label;
  // What the row leaves out, for the screen reader's label.
  const parts = [face.label];
  if (state === 'running' && face.detail !== undefined && face.detail !== '') {
    parts.push(face.detail);
  }
  if (st.verifyFailed === true && state === 'awaiting-review') {
    parts[0] += ', Verify failed';
  }
  if (st.rubricFailed === true && state === 'awaiting-review') {
    parts[0] += ', rubric failed';
  }
  if (face.detail?.startsWith('last re-run ') === true) {
    parts[0] += ', last re-run failed';
  }
  // A config error keeps the stage's approval (or its output for review).
  if (state === 'config-error' && st.kept === 'approved') {
    parts[0] += ', its approval is kept';
  } else if (state === 'config-error' && st.kept === 'awaiting-review') {
    parts[0] += ', its output is kept for review';
  }
  if (tokens !== undefined) {
    parts.push(tokens);
  }
  if (ran !== undefined) {
    parts.push(ran);
  }
  const hasOutput = st.lastRun !== undefined && st.lastRun !== '' && (st.outputs?.length ?? 0) > 0;
  // The tooltip holds the full text the row may cut off.
  const tip = [`**${st.name}**: ${escapeMarkdown(face.label)}`];
  if (face.detail !== undefined && face.detail !== '') {
    tip.push(escapeMarkdown(face.detail));
  }
  // The gate summary, as the run's notice and the output's lens say it.
  tip.push(...gateMarkdown(st.gate, escapeMarkdown));
  if (tokens !== undefined) {
    tip.push(`Context: ${tokens}`);
  }
  const last = st.lastRunStats?.text;
  if (ran !== undefined) {
    tip.push(`Last run: ${formatMoment(parseTime(st.lastRun) as Date, now)}${last !== undefined ? ` · ${escapeMarkdown(last)}` : ''}`);
  }
  if (st.rubric !== undefined && st.rubric !== '' && face.detail?.includes(st.rubric) !== true) {
    tip.push(`Rubric: ${escapeMarkdown(st.rubric)}`);
  }
  if ((st.reviewGate?.length ?? 0) > 0) {
    tip.push(`Review Gate:\n${(st.reviewGate as string[]).map((i) => `- ${escapeMarkdown(i)}`).join('\n')}`);
  }
  if ((st.downstream?.length ?? 0) > 0) {
    tip.push(`Read by: ${(st.downstream as string[]).join(', ')}`);
  }
  return {
    id: `${ws.workspace}#${st.name}`,
    label: st.name,
    description: shown,
    tooltip: tip.join('\n\n'),
    icon: { id: face.icon, color: face.color },
    contextValue: `stage:${state}${hasOutput ? ':output' : ''}`,
    accessibleLabel: `${st.name}, ${parts.join(', ')}`,
  };
}

// What the status bar says of the next stage: the state's words, and for a
// stage that runs next, that it does.
const nextWords: Partial<Record<StageState, string>> = {
  pending: 'ready to run',
  stale: 'stale, runs again',
  failed: 'failed, runs again',
};

export interface StatusBarView {
  /** A codicon id. */
  icon: string;
  /** "01-scope awaiting review". */
  label: string;
  tooltip: string;
  /** A theme colour id for an error, else undefined. */
  color?: string;
  /** The command a click runs, when not the status. */
  command?: string;
}

/**
 * The next step in the editor's words: the server's message names the
 * CLI's commands (`icm approve 01-scope`), which a person in the editor
 * does not type.
 */
export function nextText(next: NextStep | undefined, stages: StageStatus[] = []): string {
  if (next === undefined) {
    return 'no next step';
  }
  const stage = next.stage ?? '';
  if (next.action === 'fix' && stages.find((s) => s.name === stage)?.status === 'config-error') {
    return `${stage} cannot run until config.toml is fixed: the Problems panel lists what is wrong there`;
  }
  switch (stage === '' ? 'done' : next.action) {
    case 'run':
      return `${stage} runs next: ▶ in the Pipeline view, or ICM: Run Next Stage`;
    case 'approve':
      return `${stage} awaits review: read its output, edit it if you like, then approve it`;
    case 'fix':
      return `${stage} cannot run: fix the problems the Problems panel lists for its contract`;
    case 'trust':
      return `${stage} runs once you trust the workspace: ICM: Trust This Workspace shows what it would run, contact and read`;
    case 'start-server':
      return `${stage} runs once the model server answers: ICM: Doctor says how to start it`;
    case 'wait':
      return `${stage} is running`;
  }
  return next.message;
}

/** The status bar's one line: what runs now, or the workspace's next step. */
export function statusBarView(ws: WorkspaceStatus): StatusBarView {
  const tooltip = `ICM ${ws.name}: ${nextText(ws.next, ws.stages)}`;
  if (!ws.trust.allowed && (ws.running === null || ws.running === undefined)) {
    // Nothing runs until the workspace is trusted: that is the next step.
    return {
      icon: 'shield',
      label: `${ws.name} not trusted`,
      tooltip: `ICM ${ws.name}: ${ws.trust.summary}. Click to see what it would run, contact and read, and trust it.`,
      command: 'icm.trustWorkspace',
    };
  }
  const running = ws.running;
  if (running !== null && running !== undefined) {
    // The running record's short words, as the row counts; the whole in
    // the tooltip, as the progress says it.
    const count = running.count ?? '';
    const text = running.text ?? '';
    return {
      icon: 'sync~spin',
      label: `${running.stage} running${count !== '' ? ` · ${count}` : ''}`,
      tooltip: text !== '' ? `${tooltip}\n${running.stage}: ${text}` : tooltip,
    };
  }
  // A re-run that failed leaves its stage as it was, so the next step may
  // not be about it: the status bar still says it.
  const failedRerun = ws.stages.find((s) => s.face.detail?.startsWith('last re-run ') === true);
  const also = failedRerun !== undefined ? ` · ${failedRerun.name} re-run failed` : '';
  const alsoTip = failedRerun !== undefined ? `\n${failedRerun.name}: ${faceText(failedRerun.face)}` : '';
  const next = ws.next;
  if (next === undefined || next.action === 'done' || next.stage === undefined || next.stage === '') {
    return { icon: failedRerun !== undefined ? 'warning' : 'pass', label: `all stages approved${also}`, tooltip: tooltip + alsoTip };
  }
  const st = ws.stages.find((s) => s.name === next.stage);
  const face = st?.face;
  // The state's own words, with what happens next where that is a run.
  const words = (st && (nextWords[st.status] ?? face?.label)) ?? next.action;
  const icon = next.action === 'approve' ? 'eye' : next.action === 'fix' ? (st?.status === 'config-error' ? 'settings-gear' : 'circle-slash') : 'play';
  const tip = (face?.detail ? `${tooltip}\n${next.stage}: ${faceText(face)}` : tooltip) + (failedRerun?.name !== next.stage ? alsoTip : '');
  const label = `${next.stage} ${words}${failedRerun?.name !== next.stage ? also : ''}`;
  return { icon, label, tooltip: tip, color: face?.tone === 'error' ? face.color : undefined };
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

/** What Check the Model Server says. */
export function modelStatusText(r: ModelStatus): string {
  if (!r.reachable) {
    return `No model server answers at ${r.url}${r.error ? ` (${r.error})` : ''}. Start Ollama (\`ollama serve\`), or set icm.ollama.host.`;
  }
  const server = `The model server at ${r.url}${r.version ? ` (Ollama ${r.version})` : ''}`;
  if (!r.installed) {
    const mean = r.suggestion ? ` Did you mean ${r.suggestion}?` : '';
    return `${server} answers, but has no ${r.model}.${mean} Pull it, or pick one it has: ${r.models.join(', ') || 'none yet'}.`;
  }
  return `${server} answers and has ${r.model}.`;
}

/**
 * The legend of the stage states as a list to pick from: each state's
 * icon and word, its meaning below, in a list as wide as the palette
 * (as rows of the Pipeline view, the meanings were cut in a narrow side
 * bar).
 */
export function legendItems(states: StateWords[]): { label: string; detail: string }[] {
  return states.map((s) => ({ label: `$(${s.icon}) ${s.label}`, detail: s.means }));
}

/** The legend as the Legend row's tooltip (Markdown). */
export function legendTooltip(states: StateWords[]): string {
  return states.map((s) => `- **${escapeMarkdown(s.label)}**: ${escapeMarkdown(s.means)}`).join('\n');
}
