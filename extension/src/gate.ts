// A stage's gate summary as the server sends it (report.Gate's lines):
// the outputs missing, the changes proposed, the headings later stages
// lack and what icm warned of. The notice and the Pipeline view lay the
// same lines out, each with the server's word (FAIL, WARN) and words;
// none is made here. Plain data out, so it is tested without VS Code.
import type { GateLine } from './protocol';

/** The summary as sentences after a notice's first: " WARN Text: item; item." for each line. */
export function gateSentences(lines: GateLine[] | undefined): string {
  return (lines ?? []).map((l) => ` ${endSentence(`${l.word} ${l.text}${(l.items?.length ?? 0) > 0 ? `: ${(l.items as string[]).join('; ')}` : ''}`)}`).join('');
}

/** The summary as Markdown paragraphs, the items of a line listed under it; escape makes text safe for Markdown. */
export function gateMarkdown(lines: GateLine[] | undefined, escape: (s: string) => string): string[] {
  return (lines ?? []).map((l) => {
    const items = l.items ?? [];
    const head = `${l.word} ${escape(l.text)}`;
    return items.length === 0 ? head : `${head}:\n${items.map((i) => `- ${escape(i)}`).join('\n')}`;
  });
}

function endSentence(s: string): string {
  return /[.?!]$/.test(s) ? s : `${s}.`;
}
