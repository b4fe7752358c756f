// icm setup in the editor: the workspace's setup questions, one input box
// (or choice) each, the answers saved to [vars] in config.toml by the
// server. Plain data out, so the wording is tested without VS Code.
import type { SetupAsk } from './protocol';

/** How one question is put to the person. */
export interface SetupPrompt {
  title: string;
  prompt: string;
  /** The answer filled in: the current value, else the default. */
  value: string;
  /** The choices, when the question offers some. */
  options?: string[];
}

/** The input box or choice of the nth of count questions. */
export function setupPrompt(a: SetupAsk, n: number, count: number): SetupPrompt {
  const vars = a.vars.map((v) => `{{${v}}}`).join(', ');
  const p: SetupPrompt = {
    title: `Set up the workspace (${n} of ${count})`,
    prompt: `${a.question} — fills ${vars}${a.from !== undefined && a.from !== '' ? ` (${a.from})` : ''}`,
    value: a.current ?? a.default ?? '',
  };
  if (a.options !== undefined && a.options.length > 0) {
    p.options = a.options;
  }
  return p;
}

/** The answers to save: an empty one leaves its variables unset. */
export function setupAnswers(asks: SetupAsk[], given: (string | undefined)[]): Record<string, string> {
  const out: Record<string, string> = {};
  asks.forEach((a, i) => {
    const v = (given[i] ?? '').trim();
    if (v !== '') {
      for (const name of a.vars) {
        out[name] = v;
      }
    }
  });
  return out;
}

/** What the editor says once the answers are saved. */
export function setupDone(saved: number, asked: number): string {
  if (saved === 0) {
    return 'Nothing was saved: every question was left empty.';
  }
  const left = asked - saved;
  return `Saved ${saved} answer${saved === 1 ? '' : 's'} to [vars] in config.toml${left > 0 ? `; ${left} left unset` : ''}.`;
}
