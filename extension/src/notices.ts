// What the editor says when a run ends: the stage it is about (Run All
// names the stage it stopped at), how the run ended and the state in the
// same words as the Runs and Pipeline views, failed tool calls in the
// server's words, and for a failure the hint and one button per fix the
// server offers. Plain data out, so the wording is tested without VS Code.
import { faceText } from './present';
import { errorNotice, relativeTo } from './errors';
import { gateSentences } from './gate';
import type { ErrorAction, NextStep, RunFinished } from './protocol';

/** A fix offered on an error, as the server sends it. */
export type FixAction = ErrorAction;

/** The buttons a notice can offer besides the server's fixes. */
export const Button = {
  openOutput: 'Open Output',
  approve: 'Approve',
  showRun: 'Show Run',
  showLogs: 'Show Logs',
  retry: 'Retry',
} as const;

export interface NoticeAction {
  title: string;
  /** A Button value, or a fix id ("pull-model", "start-server", ...). */
  id: string;
  fix?: FixAction;
}

export interface RunNotice {
  severity: 'info' | 'warning' | 'error';
  text: string;
  actions: NoticeAction[];
}

const button = (id: string): NoticeAction => ({ id, title: id });

/** The hint a failure's error data carries, as the error presenter words it. */
function hintOf(ev: RunFinished): string {
  if (ev.error === undefined) {
    return '';
  }
  // errorNotice puts " — Hint." after the message: keep that part.
  const t = errorNotice('', ev.error).text;
  const i = t.indexOf(' — ');
  return i >= 0 ? t.slice(i) : '';
}

/**
 * The buttons for a failure's fixes: the ones the error presenter offers
 * (at most three, most likely first), then Retry when the fix lies outside
 * icm (a server to start, a model to pull).
 */
export function fixActions(ev: RunFinished): NoticeAction[] {
  const err = ev.error;
  if (err === undefined) {
    return [button(Button.showLogs)];
  }
  const out: NoticeAction[] = errorNotice('', err).buttons.map((b) => ({ id: b.action.id, title: b.label, fix: b.action }));
  if (retryKinds.has(err.kind) && ev.stage !== '') {
    // Retry right after starting the server (start, then try again), else last.
    const start = out.findIndex((a) => a.id === 'start-server');
    out.splice(start >= 0 ? start + 1 : out.length, 0, button(Button.retry));
  }
  if (out.length === 0) {
    out.push(button(Button.showLogs));
  }
  return out;
}

// After starting a server or pulling a model, the run is worth another go.
const retryKinds = new Set(['model-unreachable', 'model-missing', 'model-failed', 'runner-stopped', 'tool-failed']);

/**
 * The notice shown when a stage run ends. next is the workspace's next
 * step as the Pipeline view has it: when nothing ran because a stage
 * awaits review, the notice offers that review instead of the server's
 * words (which name the CLI's command).
 */
export function runNotice(ev: RunFinished, next?: NextStep): RunNotice {
  const n = noticeOf(ev, next);
  return { ...n, text: relativeTo(n.text, ev.workspace) };
}

/** runNotice, its paths as the server wrote them. */
function noticeOf(ev: RunFinished, next?: NextStep): RunNotice {
  const stage = ev.stage !== '' ? ev.stage : 'The run';
  if (ev.cancelled) {
    return { severity: 'info', text: `${stage} run cancelled; ${cancelledStanding(ev)}`, actions: [] };
  }
  if (ev.nothingRan === true) {
    // Nothing ran (everything approved, or a gate or an error stops the
    // run before any stage): say where it stands, offer nothing to approve.
    const why = ev.message !== undefined && ev.message !== '' ? ev.message : 'nothing needed running';
    if (ev.ok && next?.stage !== undefined && next.stage !== '' && (next.action === 'approve' || next.action === 'fix')) {
      return next.action === 'approve'
        ? {
            severity: 'info',
            text: `Nothing ran: ${next.stage} awaits your review first. Read its output, edit it if you like, then approve it.`,
            actions: [button(Button.openOutput), button(Button.approve)],
          }
        : { severity: 'warning', text: `Nothing ran: ${next.stage} cannot run until the problems in its contract are fixed (see the Problems panel).`, actions: [] };
    }
    if (!ev.ok) {
      return { severity: 'error', text: `Nothing ran: ${why}${hintOf(ev)}`, actions: fixActions(ev) };
    }
    return { severity: 'info', text: `Nothing ran: ${why}`, actions: [] };
  }
  if (!ev.ok && ev.error?.actions.some((a) => a.id === 'adopt') === true) {
    // The server's question about outputs committed with the workspace:
    // its words, and its answers as the buttons.
    const text = `${cap(ev.message ?? '')}${hintOf(ev)}`;
    return { severity: 'warning', text: /[.?!]$/.test(text) ? text : `${text}.`, actions: fixActions(ev) };
  }
  if (!ev.ok) {
    const message = withoutStage(ev.message ?? '', ev.stage);
    // An edited output waits for the person's call: nothing failed.
    const severity = ev.error?.kind === 'edited-output' ? 'warning' : 'error';
    if (ev.stage !== '' && (message.startsWith(`${ev.stage} cannot run`) || message.includes(` during ${ev.stage}`))) {
      // The message names the stage and says what happened: it is the sentence.
      const text = `${cap(message)}${hintOf(ev)}`;
      return { severity, text: /[.?!]$/.test(text) ? text : `${text}.`, actions: fixActions(ev) };
    }
    // How the run ended, in the Runs view's word for it: a run that did
    // no work was refused, one that did some failed.
    const what = ev.error?.kind === 'edited-output' ? `${stage} was not run again` : `${ev.stage !== '' ? `${ev.stage} run` : 'The run'} ${ev.outcome}`;
    const msg = message !== '' ? `: ${message}` : '';
    return { severity, text: `${what}${msg}${hintOf(ev)}${standing(stage, ev, message)}`, actions: fixActions(ev) };
  }
  const tools = ev.tools ?? '';
  const withRun = ev.runId !== '' ? [button(Button.showRun)] : [];
  if (ev.sameOutput === true && ev.face?.status === 'approved') {
    return {
      severity: tools === '' ? 'info' : 'warning',
      text: `${stage} ran again and wrote the same output: it is still approved, and nothing after it goes stale.${tools === '' ? '' : ` ${cap(tools)}.`}`,
      actions: [button(Button.openOutput), ...withRun],
    };
  }
  if (ev.manual !== undefined && ev.manual !== '') {
    // A step of the person's: no model ran; the server says what it is.
    const text = `${stage} is a ${withoutStage(ev.message ?? 'manual step', ev.stage)}`;
    return { severity: 'info', text: /[.?!]$/.test(text) ? text : `${text}.`, actions: [button(Button.approve), ...withRun] };
  }
  const head = ev.item !== undefined && ev.item > 0 ? `${stage} item ${ev.item} written again` : `${stage} finished`;
  const problems: string[] = [];
  if (tools !== '') {
    problems.push(tools);
  }
  if (ev.verifyFailed === true) {
    const first = ev.findings?.[0];
    problems.push(`its output failed Verify checks${first !== undefined ? `: ${first}` : ''}`);
  }
  if (ev.rubricFailed === true && ev.rubric !== undefined && ev.rubric !== '') {
    problems.push(`its rubric: ${ev.rubric}`);
  }
  // The gate summary follows, line by line in the server's words: the
  // Pipeline view's tooltip and the output's lens say the same.
  const gate = ev.gate ?? [];
  const text =
    (problems.length === 0
      ? `${head} and awaits review.`
      : `${head} and awaits review, but ${problems.join('; ')}.`) +
    gateSentences(gate) +
    reviewChecklist(ev.reviewGate);
  return {
    severity: problems.length === 0 && gate.length === 0 ? 'info' : 'warning',
    text,
    actions: [button(Button.openOutput), button(Button.approve), ...withRun],
  };
}

/**
 * The contract's Review Gate as the notice's last sentence: " Review
 * Gate: sources cited; no names of clients." (nothing without one).
 */
export function reviewChecklist(items: string[] | undefined): string {
  if (items === undefined || items.length === 0) {
    return '';
  }
  const text = items.map((i) => i.replace(/[.;]+$/, '')).join('; ');
  return ` Review Gate: ${text}.`;
}

/**
 * The message without the "stage NAME: " the engine puts before it (the
 * notice names the stage already), and "stage NAME cannot run" as
 * "NAME cannot run".
 */
function withoutStage(message: string, stage: string): string {
  if (stage === '') {
    return message;
  }
  const prefix = `stage ${stage}: `;
  if (message.startsWith(prefix)) {
    return message.slice(prefix.length);
  }
  return message.startsWith(`stage ${stage} `) ? message.slice('stage '.length) : message;
}

/** What a cancel left, from the stage's state after it. */
function cancelledStanding(ev: RunFinished): string {
  switch (ev.face?.status) {
    case 'approved':
      return 'it is still approved.';
    case 'awaiting-review':
      return 'its last output is kept for review.';
    case 'stale':
      return 'its last output is kept (it is stale).';
    case 'config-error':
      return 'its last output is kept.';
  }
  return 'it has no output yet. The items that finished are kept for the next run.';
}

/** A state as the end of a sentence about its stage: "is approved", "has errors". */
function stateWords(label: string): string {
  if (label === 'has errors') {
    return label;
  }
  if (label === 'config error') {
    return 'has a config error';
  }
  return `is ${label}`;
}

/**
 * Where a stage stands after a failed run, without the failure the notice
 * has just told: " 01-scope is still approved.", " 01-scope is stale ·
 * the model changed since the last run.", or nothing for a stage that has
 * no good run (it is failed, which the notice says already).
 */
function standing(stage: string, ev: RunFinished, message: string): string {
  const f = ev.face;
  if (f === undefined || f.status === 'failed') {
    return '';
  }
  const all = (f.detail ?? '').split(' · ').filter((p) => p !== '');
  // Neither the failure the notice has just told nor what its message says again.
  const parts = all.filter((p) => !/^last (re-)?run /.test(p) && !message.includes(p.replace(/^cannot run: /, '')));
  const failedRerun = all.some((p) => /^last (re-)?run /.test(p));
  const text = faceText({ ...f, detail: parts.join(' · ') });
  const line = failedRerun && parts.length === 0 && f.status === 'approved' ? `is still ${text}` : stateWords(f.label) + text.slice(f.label.length);
  return ` ${stage} ${line}${/[.?!]$/.test(line) ? '' : '.'}`;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
