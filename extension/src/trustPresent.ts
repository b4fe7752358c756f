// How trusting a workspace reads in the editor: the question with the
// whole list, and the notice once it is trusted. Plain data, tested
// without VS Code; trust.ts shows it.
import type { TrustInfo, TrustPart } from './protocol';

/** A part in one line: "run sh -c make (from pipeline/02-b/CONTEXT.md ## Script)". */
export function partLine(p: TrustPart): string {
  return `${p.verb} ${p.value.replace(/\n/g, ' ⏎ ')} (from ${p.where})`;
}

/** How many parts, in words: "3 things". */
function things(n: number): string {
  return n === 1 ? '1 thing' : `${n} things`;
}

/** The last segment of a path. */
export function folderName(path: string): string {
  return path.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? path;
}

/** The modal question: a message, and the list as its detail. */
export function trustQuestion(info: TrustInfo): { message: string; detail: string } {
  const name = folderName(info.workspace);
  const lines = info.parts.map((p) => [`• ${partLine(p)}`, ...(p.pins ?? []).map((pin) => `    – ${pin}`)].join('\n'));
  let detail = `Trusting ${info.workspace} allows icm to do exactly this:\n\n${lines.join('\n')}`;
  if (info.changes.length > 0) {
    const changed = info.changes.map((c) => {
      if (c.files && c.files.length > 0) {
        return `• ${c.files.join('; ')} (${c.where})`;
      }
      return `• ${c.where}: ${c.was ? `${c.was} → ${c.value}` : `new: ${c.value}`}`;
    });
    detail = `It changed since it was trusted:\n${changed.join('\n')}\n\n${detail}`;
  }
  detail += '\n\nA change to any of it untrusts the workspace again.';
  return { message: `Trust the ICM workspace ${name}? It names ${things(info.parts.length)} to run, contact or read.`, detail };
}

/** The notice once trusted: what was trusted, every part. */
export function trustedNotice(info: TrustInfo): string {
  const name = folderName(info.workspace);
  return `Trusted ${name}; icm may now ${info.parts.map(partLine).join('; ')}. Run is enabled.`;
}

/** Why there is nothing to trust, or undefined when there is. */
export function nothingToTrust(info: TrustInfo): string | undefined {
  const name = folderName(info.workspace);
  switch (info.state) {
    case 'not-needed':
      return `${name} names nothing to run, contact or read: it needs no trust.`;
    case 'trusted':
      return `${name} is already trusted (${info.by ?? 'icm trust'}).`;
  }
  return undefined;
}
