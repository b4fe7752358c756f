// How a stage test's results read in the Test Explorer: which item a job
// belongs to, the messages of a failure (the expectation, what happened,
// where it is written, and the output against the last passing one), and
// the words on an item after a run, and each finished job's line as `icm
// test` prints it. No VS Code imports, so it is tested in plain Node.
import { formatDuration } from './format';
import type { CaseInfo, JobResult, JobStatus, TestEvent, WorkspaceCases } from './testProtocol';

/** The id of a stage's item in the explorer. */
export function stageItemId(workspace: string, stage: string): string {
  return `${workspace}::${stage}`;
}

/** The id of a case's item. */
export function caseItemId(workspace: string, caseId: string): string {
  return `${workspace}::${caseId}`;
}

/** The workspace and the case or stage an item id names. */
export function parseItemId(id: string): { workspace: string; name: string } {
  const at = id.lastIndexOf('::');
  return at < 0 ? { workspace: '', name: id } : { workspace: id.slice(0, at), name: id.slice(at + 2) };
}

/** The cases grouped by stage, stages in folder order. */
export function byStage(ws: WorkspaceCases): Array<{ stage: string; cases: CaseInfo[] }> {
  const out: Array<{ stage: string; cases: CaseInfo[] }> = [];
  for (const c of ws.cases) {
    let group = out.find((g) => g.stage === c.stage);
    if (group === undefined) {
      group = { stage: c.stage, cases: [] };
      out.push(group);
    }
    group.cases.push(c);
  }
  return out;
}

/** A message of a failed job, ready for a TestMessage. */
export interface FailureMessage {
  /** Markdown. */
  text: string;
  /** Where to show it: the case file and the expectation's 0-based line. */
  file: string;
  line: number;
  /** Set for the first message when a previous passing output exists. */
  expected?: string;
  actual?: string;
}

/** The job's label among the jobs of one case: "qwen3.5:9b #2". */
export function jobLabel(r: JobResult): string {
  return `${r.model} #${r.repeat}`;
}

/**
 * The messages of a job that did not pass: one per failing expectation
 * (at its line in the case file), or one for a job that could not run.
 * The first carries the output against the last output that passed, when
 * there is one, so the explorer can show a diff.
 */
export function failureMessages(r: JobResult, info: CaseInfo, multiple: boolean): FailureMessage[] {
  const prefix = multiple ? `[${jobLabel(r)}] ` : '';
  if (r.status === 'error' || r.status === 'cancelled') {
    const hint = r.hint ? `\n\n${r.hint}` : '';
    return [{ text: `${prefix}${r.status === 'error' ? 'could not run' : 'cancelled'}: ${escapeMarkdown(r.error ?? '')}${escapeMarkdown(hint)}`, file: info.file, line: info.line }];
  }
  const out: FailureMessage[] = [];
  for (const c of r.checks) {
    if (c.ok || c.info) {
      continue;
    }
    const where = c.source === 'stage' ? ' (the stage’s own Verify check)' : '';
    let text = `${prefix}✗ ${escapeMarkdown(c.expect)}${where}\n\n${escapeMarkdown(c.message ?? '')}`;
    if (c.score !== undefined) {
      text += `\n\nScore ${c.score} of 10, ${c.threshold} needed.`;
    }
    out.push({ text, file: info.file, line: c.line !== undefined && c.line > 0 ? c.line - 1 : info.line });
  }
  if (out.length === 0) {
    out.push({ text: `${prefix}failed: ${escapeMarkdown(r.first_failure ?? 'no expectation held')}`, file: info.file, line: info.line });
  }
  const output = r.output_text ?? '';
  if (r.previous !== undefined) {
    out[0].expected = r.previous.text;
    out[0].actual = output;
    out[0].text += `\n\nThe diff compares this output with the last one that passed (run ${r.previous.run_id}).`;
  } else if (output !== '') {
    out[0].text += `\n\nThe output (${r.output ?? 'output'}):\n\n${fence(output)}`;
  }
  return out;
}

/** Text shown as it is in Markdown: every character Markdown could read as syntax is escaped. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}

/** A fenced block that the text cannot close early. */
function fence(text: string): string {
  let ticks = '```';
  while (text.includes(ticks)) {
    ticks += '`';
  }
  return `${ticks}\n${text.replace(/\n$/, '')}\n${ticks}`;
}

/**
 * What an item says after a run: "2/3 passed · 7.2 s · qwen3.5:9b 2/2,
 * llama3.1:8b 0/1", the time of its jobs together. VS Code is given no
 * duration: it would write its own ("7.2s") beside icm's.
 */
export function describeRuns(results: JobResult[]): string {
  const per = new Map<string, { passed: number; runs: number }>();
  let passed = 0;
  let took = 0;
  for (const r of results) {
    took += nsToMs(r.duration);
    const cell = per.get(r.model) ?? { passed: 0, runs: 0 };
    cell.runs++;
    if (r.status === 'passed') {
      cell.passed++;
      passed++;
    }
    per.set(r.model, cell);
  }
  const cells = [...per.entries()].map(([m, c]) => `${m} ${c.passed}/${c.runs}`);
  return `${passed}/${results.length} passed · ${formatDuration(took)} · ${cells.join(', ')}`;
}

/** A job's nanoseconds (icm test --json's duration) in milliseconds. */
function nsToMs(ns: number): number {
  return ns / 1e6;
}

/** How a job's outcome reads, as `icm test` marks it (docs/vocabulary.md). */
export const testMarks: Record<JobStatus, string> = { passed: '✓', failed: '✗', error: '!', cancelled: '-' };

/**
 * A finished job as `icm test` prints it: "✓ [3/12] 01-scope/go-cli ×
 * qwen3.5:9b #1  2.4 s", then the first failing expectation, or the error
 * and its hint, and where its copy of the workspace is kept.
 */
export function jobLine(ev: TestEvent): string {
  const r = ev.result;
  if (r === undefined) {
    return '';
  }
  let s = `${testMarks[r.status] ?? '?'} [${ev.index}/${ev.total}] ${r.case} × ${r.model} #${r.repeat}  ${formatDuration(nsToMs(r.duration))}`;
  if (r.status === 'failed') {
    s += `\n    ${oneLine(r.first_failure ?? '')}`;
  } else if (r.status === 'error') {
    s += `\n    ${oneLine(r.error ?? '')}`;
    if (r.hint) {
      s += `\n    hint: ${oneLine(r.hint)}`;
    }
  }
  if (r.copy) {
    s += `\n    copy kept at ${r.copy}`;
  }
  return s;
}

/** Text on one line, its runs of white space one space. */
function oneLine(s: string): string {
  return s.split(/\s+/).filter((w) => w !== '').join(' ');
}

/**
 * Whether a change to the file at path may change the Test Explorer: a
 * stage's test case, or a config.toml (its [test] models make the
 * profiles).
 */
export function listsTests(path: string): boolean {
  return /(^|\/)config\.toml$/.test(path) || /\/tests\/(.*\/)?[^/]+\.md$/.test(path);
}
