// How runs read in the Runs view. Plain data out, so the wording is tested
// without VS Code.
import { formatCount, formatDuration, formatMoment, formatTime } from './format';
import type { RunEntry, RunNode, RunStatus } from './protocol';

export interface RunItemView {
  label: string;
  description: string;
  /** Markdown. */
  tooltip: string;
  icon: { id: string; color?: string };
}

const red = 'testing.iconFailed';

/** Each way a run ends, in words and with its own icon (the icon alone says nothing to a screen reader). */
const looks: Record<RunStatus, { word: string; icon: string; color?: string }> = {
  done: { word: '', icon: 'history' },
  running: { word: 'running', icon: 'sync~spin' },
  failed: { word: 'failed', icon: 'error', color: red },
  cancelled: { word: 'cancelled', icon: 'stop-circle', color: 'charts.orange' },
  refused: { word: 'refused', icon: 'circle-slash', color: 'charts.yellow' },
  stopped: { word: 'stopped before it finished', icon: 'debug-disconnect', color: 'charts.orange' },
};

/** A run's status; an older server sends none, and its stages' errors say it. */
function statusOf(run: RunEntry): RunStatus {
  if (run.status !== undefined && looks[run.status] !== undefined) {
    return run.status;
  }
  if (!run.finished) {
    return 'stopped';
  }
  return run.stages.some((s) => s.error !== undefined && s.error !== '') ? 'failed' : 'done';
}

/** A run's row: when and what, how it ended, how long and how many tokens. */
export function runView(run: RunEntry, now: Date): RunItemView {
  const start = new Date(run.start);
  const started = !Number.isNaN(start.getTime());
  const when = started ? formatTime(start, now) : run.id;
  const status = statusOf(run);
  const look = looks[status];
  let what = run.stages.map((s) => s.stage).join(', ');
  if (run.item !== undefined && run.item > 0) {
    what = `${run.itemStage ?? what} item ${run.item} again`;
  }
  const errors = run.stages
    .filter((s) => s.error !== undefined && s.error !== '')
    .map((s) => `${s.stage}: ${s.error as string}`);
  const agents = [...new Set(run.stages.map((s) => s.agent).filter((a): a is string => a !== undefined && a !== ''))];
  // No model of icm's read a token when a coding agent did the work.
  const tokens =
    agents.length > 0 && run.promptTokens === 0 && run.outputTokens === 0
      ? `handed in by ${agents.join(', ')} over MCP`
      : `${formatCount(run.promptTokens)} tokens in / ${formatCount(run.outputTokens)} out`;
  let parts: string[];
  switch (status) {
    case 'refused':
      // An attempt the server (or icm) refused did no work: its figures would read as a run's.
      parts = [look.word, ...(errors.length > 0 ? [errors[0]] : [])];
      break;
    case 'running':
      parts = [look.word, formatDuration(started ? now.getTime() - start.getTime() : run.durationMs), `${tokens} so far`];
      break;
    default:
      parts = [look.word, formatDuration(run.durationMs), tokens].filter((p) => p !== '');
  }
  const toolErrors = countToolErrors(run.stages);
  if (toolErrors > 0) {
    parts.push(`${toolErrors} of ${countTools(run.stages)} tool calls failed`);
  }
  const tip = [`**run ${escape(run.id)}**`];
  if (started) {
    tip.push(`Started ${formatMoment(start, now)}${status === 'done' ? '' : ` · ${look.word}`}`);
  }
  if (status !== 'refused') {
    tip.push(`${formatDuration(status === 'running' && started ? now.getTime() - start.getTime() : run.durationMs)} · ${tokens}`);
  }
  if (run.item !== undefined && run.item > 0) {
    tip.push(`Item ${run.item} of ${escape(run.itemStage ?? '')} run again${run.note ? `. Your note: ${escape(run.note)}` : ', without a note'}`);
  }
  tip.push(...errors.map((e) => escape(e)));
  return {
    label: `${when} · ${what === '' ? 'nothing ran' : what}`,
    description: parts.join(' · '),
    tooltip: tip.join('\n\n'),
    icon: { id: look.icon, color: look.color ?? (toolErrors > 0 ? 'charts.orange' : undefined) },
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
  const description = rest.filter((p) => !p.startsWith('error: ')).join(' · ');
  const tip = [`**${escape(label)}**`];
  if (description !== '') {
    tip.push(escape(description));
  }
  if (n.kind === 'model' && (n.promptTokens !== undefined || n.outputTokens !== undefined)) {
    tip.push(`${formatCount(n.promptTokens ?? 0)} tokens in, ${formatCount(n.outputTokens ?? 0)} out.`);
  }
  if (n.kind === 'tool' && n.args !== undefined) {
    tip.push('Arguments:\n\n```json\n' + JSON.stringify(n.args, null, 2) + '\n```');
  }
  if (n.note !== undefined && n.note !== '') {
    tip.push(`Your note for the model: ${escape(n.note)}`);
  }
  if (n.error !== undefined && n.error !== '') {
    tip.push(`**Error:** ${escape(n.error)}`);
  }
  if (n.uri !== undefined) {
    tip.push(n.kind === 'tool' ? 'Select to read its arguments, its result and its error.' : 'Select to read the request and the reply.');
  }
  const failed = n.error !== undefined && n.error !== '';
  return {
    label,
    description,
    tooltip: tip.join('\n\n'),
    icon: failed ? { id: 'error', color: red } : { id: kindIcons[n.kind] ?? 'circle-small' },
  };
}

function countToolErrors(nodes: RunNode[]): number {
  let n = 0;
  for (const x of nodes) {
    if (x.kind === 'tool' && x.error !== undefined && x.error !== '') {
      n++;
    }
    n += countToolErrors(x.children ?? []);
  }
  return n;
}

function countTools(nodes: RunNode[]): number {
  let n = 0;
  for (const x of nodes) {
    n += (x.kind === 'tool' ? 1 : 0) + countTools(x.children ?? []);
  }
  return n;
}

function escape(s: string): string {
  return s.replace(/([\\`*_{}[\]<>()#+!|])/g, '\\$1');
}
