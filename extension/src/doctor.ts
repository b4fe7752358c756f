// The Doctor report in the editor: one line per thing a run needs, each
// failing one with the button that fixes it. Plain data out, so the
// wording is tested without VS Code.
import { plural } from './format';
import type { DoctorResult, DoctorLine, ErrorAction } from './protocol';

/** One entry of the Doctor's list. */
export interface DoctorItem {
  label: string;
  description: string;
  /** The button's title, for a line that has a fix. */
  detail?: string;
  fix?: ErrorAction;
}

const icons: Record<string, string> = { ok: '$(pass)', warn: '$(warning)', fail: '$(error)', skip: '$(circle-slash)' };

/** The list the Doctor command shows: failing lines first, each with its fix. */
export function doctorItems(d: DoctorResult): DoctorItem[] {
  const order: Record<string, number> = { fail: 0, warn: 1, ok: 2, skip: 3 };
  const lines = [...d.lines].sort((a, b) => (order[a.status] ?? 4) - (order[b.status] ?? 4));
  return lines.map((l: DoctorLine) => {
    const item: DoctorItem = { label: `${icons[l.status] ?? ''} ${l.title}`.trim(), description: l.text };
    if (l.fix !== undefined && (l.status === 'fail' || l.status === 'warn')) {
      item.detail = `$(wrench) ${l.fix.title}`;
      item.fix = l.fix;
    }
    return item;
  });
}

/** The Doctor's title line: how many lines failed. */
export function doctorTitle(d: DoctorResult): string {
  if (d.failed === 0) {
    return 'ICM Doctor: everything a run needs is in place';
  }
  return `ICM Doctor: ${plural(d.failed, 'thing')} to fix (pick one to fix it)`;
}
