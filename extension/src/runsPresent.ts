// How runs read in the Runs view: the server's words for each run's
// figures and outcome (docs/vocabulary.md), the times against the
// person's own clock. Plain data out, so the wording is tested without
// VS Code.
import { formatDuration, formatMoment, formatTime } from './format';
import type { RunEntry, RunNode, RunStatus, WorkspaceStatus } from './protocol';

export interface RunItemView {
  label: string;
  description: string;
  /** Markdown. */
  tooltip: string;
  icon: { id: string; color?: string };
}

const red = 'testing.iconFailed';

/** Each way a run ends has its own icon: the icon alone says nothing to a screen reader, the word (the status) says it. */
const looks: Record<RunStatus, { icon: string; color?: string }> = {
  done: { icon: 'history' },
  running: { icon: 'sync~spin' },
  failed: { icon: 'error', color: red },
  cancelled: { icon: 'stop-circle', color: 'charts.orange' },
  refused: { icon: 'circle-slash', color: 'charts.yellow' },
  stopped: { icon: 'debug-disconnect', color: 'charts.orange' },
};

/**
 * A run's row: when and what, and how it ended in a word (a run going:
 * for how long), so it reads whole in a narrow side bar (at 1280 px
 * beside the secondary side bar, about 300 px); its figures, tool
 * failures and errors are in the tooltip. means is what its outcome
 * means, from the legend icm.runs sends.
 */
export function runView(run: RunEntry, now: Date, means = ''): RunItemView {
  const start = new Date(run.start);
  const started = !Number.isNaN(start.getTime());
  const when = started ? formatTime(start, now) : run.id;
  const look = looks[run.status];
  const names = run.stages.map((s) => s.stage);
  // Several stages: the first and the last (the tooltip lists them all).
  let what = names.length > 2 ? `${names[0]}…${names[names.length - 1]}` : names.join(', ');
  if (run.item !== undefined && run.item > 0) {
    what = `${run.itemStage ?? what} item ${run.item} again`;
  }
  const errors = run.stages
    .filter((s) => s.error !== undefined && s.error !== '')
    .map((s) => `${s.stage}: ${s.error as string}`);
  // A run going now has been going since it started, counted here: the
  // server's duration is the one it had when it was asked.
  const took = run.status === 'running' && started ? formatDuration(now.getTime() - start.getTime()) : run.duration;
  const tip = [`**run ${escape(run.id)}**`];
  if (started) {
    tip.push(`Started ${formatMoment(start, now)} · ${run.status}${means === '' ? '' : `: ${means}`}`);
  }
  if (names.length > 1) {
    tip.push(`Stages: ${names.join(', ')}`);
  }
  if (run.status !== 'refused') {
    // An attempt the server (or icm) refused did no work: its figures would read as a run's.
    const figures = [took, run.status === 'running' ? `${run.tokens} so far` : run.tokens, run.tools ?? ''].filter((p) => p !== '');
    tip.push(figures.join(' · '));
  }
  if (run.item !== undefined && run.item > 0) {
    tip.push(`Item ${run.item} of ${escape(run.itemStage ?? '')} run again${run.note ? `. Your note: ${escape(run.note)}` : ', without a note'}`);
  }
  tip.push(...errors.map((e) => escape(e)));
  return {
    label: `${when} · ${what === '' ? 'nothing ran' : what}`,
    description: run.status === 'running' ? `${run.status} · ${took}` : run.status,
    tooltip: tip.join('\n\n'),
    icon: { id: look.icon, color: look.color ?? (run.tools ? 'charts.orange' : undefined) },
  };
}

const kindIcons: Record<RunNode['kind'], string> = {
  stage: 'layers',
  item: 'list-flat',
  model: 'hubot',
  tool: 'tools',
  verify: 'checklist',
};

/** A stage, item, model call, tool call or Verify result of a run. */
export function runNodeView(n: RunNode): RunItemView {
  // The server's line is "name  figures  figures  error: ...": the first
  // part labels it; the error is told once, in the tooltip.
  const [label, ...rest] = n.text.split('  ');
  const figures = rest.filter((p) => !p.startsWith('error: '));
  // A stage's row under its run says how it ended and how long it took;
  // its tokens and tool failures are in the tooltip, so the row reads
  // whole in a narrow side bar (about 217 px at 1280 px beside the
  // secondary side bar).
  const description = (n.kind === 'stage' ? figures.slice(0, 2) : figures).join(' · ');
  const tip = [`**${escape(label)}**`];
  if (figures.length > 0) {
    tip.push(escape(figures.join(' · ')));
  }
  if (n.kind === 'tool' && n.args !== undefined) {
    tip.push('Arguments:\n\n```json\n' + JSON.stringify(n.args, null, 2) + '\n```');
  }
  if (n.note !== undefined && n.note !== '') {
    tip.push(`Your note for the model: ${escape(n.note)}`);
  }
  if (n.approval !== undefined && n.approval !== '') {
    // Who approved what this run wrote, and why: the reviewer's note is
    // theirs, not one for the model, so it reads apart from the one above.
    tip.push(escape(n.approval));
  }
  if (n.error !== undefined && n.error !== '') {
    tip.push(`**Error:** ${escape(n.error)}`);
  }
  if (n.uri !== undefined) {
    tip.push(n.kind === 'tool' ? 'Select to read its arguments, its result and its error.' : 'Select to read the request and the reply.');
  }
  const failed = n.error !== undefined && n.error !== '';
  // Tool calls that failed, no longer on a stage's row, colour its icon
  // as they colour the run's.
  const toolsFailed = n.kind === 'stage' && figures.slice(2).some((p) => / tool calls? failed/.test(p));
  return {
    label,
    description,
    tooltip: tip.join('\n\n'),
    icon: failed ? { id: 'error', color: red } : toolsFailed ? { id: kindIcons.stage, color: 'charts.orange' } : { id: kindIcons[n.kind] ?? 'circle-small' },
  };
}

function escape(s: string): string {
  return s.replace(/([\\`*_{}[\]<>()#+!|])/g, '\\$1');
}

/**
 * What the Runs view's list depends on: a new workspace, a run that
 * started or ended, an item a running run finished (its live counts),
 * and a stage's state, whose change to approved puts who approved and
 * why on the run approved.
 */
export function runsKey(workspaces: WorkspaceStatus[]): string {
  return workspaces
    .map((ws) => `${ws.workspace}:${ws.running?.runId ?? ''}:${ws.running?.done ?? ''}:${ws.stages.map((s) => `${s.lastRun ?? ''}/${s.status}`).join(',')}`)
    .join(';');
}
