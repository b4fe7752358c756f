// How the review flow reads the server's answers: error data, Verify
// failures and earlier outputs. (What it says when a run ends is notices.ts.)
import * as path from 'node:path';
import type { ErrorData, OutputsResult } from './protocol';

/** The message of anything thrown. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The error data of a server error reply (a ResponseError's data), if it has icm's shape. */
export function errorDataOf(err: unknown): ErrorData | undefined {
  const data = typeof err === 'object' && err !== null && 'data' in err ? (err as { data: unknown }).data : undefined;
  if (typeof data !== 'object' || data === null || typeof (data as ErrorData).kind !== 'string') {
    return undefined;
  }
  const d = data as ErrorData;
  return { ...d, actions: Array.isArray(d.actions) ? d.actions : [] };
}

/** The Verify failures an approveStage error reports, or undefined for any other error. */
export function verifyFailure(err: unknown): string | undefined {
  if (errorDataOf(err)?.kind !== 'verify-failed') {
    return undefined;
  }
  // The question already says which stage failed its checks: the detail
  // is the checks, one a line ("stage S has failing Verify checks: a; b").
  const m = messageOf(err);
  const lead = / has failing Verify checks: /.exec(m);
  return lead === null ? m : m.slice(lead.index + lead[0].length).split('; ').join('\n');
}

/**
 * What is wrong with the note of an approval past failing checks, or
 * undefined when it will do: the server keeps it with the approval and
 * refuses a forced approval without one.
 */
export function approvalNoteProblem(note: string): string | undefined {
  return note.trim() === '' ? 'Say why the output is fine as it is: the note is kept with the approval.' : undefined;
}

export interface Comparison {
  /** The output's file name. */
  label: string;
  current: string;
  previous: string;
  time: string;
}

/**
 * Pairs each current output with its newest kept version, the history entry
 * with the same file name (entries come newest first; history keeps names).
 */
export function comparisons(r: OutputsResult): Comparison[] {
  const out: Comparison[] = [];
  for (const o of r.outputs.filter((x) => x.exists)) {
    const name = path.basename(o.path);
    const prev = r.previous.find((p) => path.basename(p.path) === name);
    if (prev !== undefined) {
      out.push({ label: name, current: o.path, previous: prev.path, time: prev.time });
    }
  }
  return out;
}

/**
 * Reads the time of a kept version: RFC 3339, or the UTC label history
 * folders are named with ("20261130-101502.000").
 */
export function parseHistoryTime(s: string): Date | undefined {
  const label = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(?:\.(\d{3}))?$/.exec(s);
  if (label !== null) {
    const [y, mo, d, h, mi, se, ms] = label.slice(1).map((x) => Number(x ?? 0));
    return new Date(Date.UTC(y, mo - 1, d, h, mi, se, ms));
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(s)) {
    return undefined;
  }
  const t = new Date(s);
  return Number.isNaN(t.getTime()) ? undefined : t;
}
