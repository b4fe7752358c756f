// How runs read in the Runs view. Plain data out, so the wording is tested
// without VS Code.
import { formatCount, formatDuration, formatMoment, formatTokens, formatTime, plural } from './format';
import type { RunEntry, RunNode } from './protocol';

export interface RunItemView {
  label: string;
  description: string;
  /** Markdown. */
  tooltip: string;
  icon: { id: string; color?: string };
}

const red = 'testing.iconFailed';

/** A run's row: when, how long, tokens (or the agent that handed it in); red when a stage in it failed. */
export function runView(run: RunEntry, now: Date): RunItemView {
  const start = new Date(run.start);
  const when = Number.isNaN(start.getTime()) ? run.id : formatTime(start, now);
  const stages = run.stages.map((s) => s.stage).join(', ');
  const failed = run.stages.some((s) => s.error !== undefined && s.error !== '');
  const toolErrors = countToolErrors(run.stages);
  const agents = [...new Set(run.stages.map((s) => s.agent).filter((a): a is string => a !== undefined && a !== ''))];
  const parts = [formatDuration(run.durationMs)];
  if (agents.length > 0 && run.promptTokens === 0 && run.outputTokens === 0) {
    // No model of icm's read a token: a coding agent did the work.
    parts.push(`handed in by ${agents.join(', ')} over MCP`);
  } else {
    parts.push(`${formatCount(run.promptTokens)} tokens in / ${formatCount(run.outputTokens)} out`);
  }
  // The state in words too: the row's icon alone says nothing to a screen reader.
  if (failed) {
    parts.unshift('failed');
  }
  const errors = run.stages
    .filter((s) => s.error !== undefined && s.error !== '')
    .map((s) => `${escape(s.stage)} failed: ${escape(s.error as string)}`);
  if (toolErrors > 0) {
    parts.push(`${plural(toolErrors, 'tool call')} failed`);
  }
  if (!run.finished) {
    parts.push('stopped early');
  }
  return {
    label: `${when} · ${stages === '' ? 'nothing ran' : stages}`,
    description: parts.join(' · '),
    tooltip: [`**run ${run.id}**`, `Started ${Number.isNaN(start.getTime()) ? run.start : formatMoment(start, now)}`, parts.join(' · '), ...errors].join('\n\n'),
    icon: failed ? { id: 'error', color: red } : toolErrors > 0 ? { id: 'warning', color: 'charts.orange' } : { id: 'history' },
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
  // The server's line is "name  figures  figures": the first part labels it.
  const [label, ...rest] = n.text.split('  ');
  const description = rest.join(' · ');
  const tip = [`**${escape(label)}**`];
  if (description !== '') {
    tip.push(escape(description));
  }
  if (n.kind === 'model' && (n.promptTokens !== undefined || n.outputTokens !== undefined)) {
    tip.push(`${formatTokens(n.promptTokens ?? 0)} in, ${formatTokens(n.outputTokens ?? 0)} out. Select to read the request and the reply.`);
  }
  if (n.kind === 'tool' && n.args !== undefined) {
    tip.push('Arguments:\n\n```json\n' + JSON.stringify(n.args, null, 2) + '\n```');
  }
  if (n.error !== undefined && n.error !== '') {
    tip.push(`**Error:** ${escape(n.error)}`);
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

function escape(s: string): string {
  return s.replace(/([\\`*_{}[\]<>()#+!|])/g, '\\$1');
}
