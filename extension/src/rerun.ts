// The question asked before re-running an approved stage. Plain data, so
// it is tested without VS Code.
import type { StageStatus } from './protocol';

export interface Question {
  text: string;
  detail: string;
  confirm: string;
}

/**
 * What to ask before running st again, or undefined when there is nothing
 * to lose: only an approved stage has an approval a new output would
 * replace, and the stages that read it would go stale.
 */
export function rerunQuestion(st: StageStatus, all: StageStatus[]): Question | undefined {
  if (st.status !== 'approved') {
    return undefined;
  }
  // Only a stage with an output of its own can go stale: one that never
  // ran (or whose run failed) has nothing a new input would outdate.
  const statusOf = (name: string) => all.find((s) => s.name === name)?.status;
  const down = (st.downstream ?? []).filter((name) => {
    const s = statusOf(name);
    return s === 'approved' || s === 'awaiting-review';
  });
  const approvedDown = down.filter((name) => statusOf(name) === 'approved');
  const detail =
    down.length === 0
      ? 'If the model writes something new, the output needs approving again. A failed or cancelled run keeps the approved output.'
      : `If the model writes something new, the output needs approving again and ${list(down)} ${down.length === 1 ? 'goes' : 'go'} stale` +
        approvedNow(down, approvedDown) +
        '. The same output, or a failed or cancelled run, changes nothing.';
  return { text: `${st.name} is approved. Run it again?`, detail, confirm: 'Run Again' };
}

/** " (it is approved now)", " (02-research is approved now)", or "". */
function approvedNow(down: string[], approved: string[]): string {
  if (approved.length === 0) {
    return '';
  }
  if (approved.length === down.length) {
    return down.length === 1 ? ' (it is approved now)' : ' (they are approved now)';
  }
  return ` (${list(approved)} ${approved.length === 1 ? 'is' : 'are'} approved now)`;
}

function list(names: string[]): string {
  if (names.length <= 1) {
    return names.join('');
  }
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
