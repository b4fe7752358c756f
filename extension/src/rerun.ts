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
  const down = st.downstream ?? [];
  const approvedDown = down.filter((name) => all.find((s) => s.name === name)?.status === 'approved');
  const detail =
    down.length === 0
      ? 'If the model writes something new, the output needs approving again. A failed or cancelled run keeps the approved output.'
      : `If the model writes something new, the output needs approving again and ${list(down)} ${down.length === 1 ? 'goes' : 'go'} stale` +
        (approvedDown.length > 0 ? ` (${list(approvedDown)} ${approvedDown.length === 1 ? 'is' : 'are'} approved now)` : '') +
        '. The same output, or a failed or cancelled run, changes nothing.';
  return { text: `${st.name} is approved. Run it again?`, detail, confirm: 'Run Again' };
}

function list(names: string[]): string {
  if (names.length <= 1) {
    return names.join('');
  }
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
