// The one-line edit of config.toml that replaces the model a workspace
// names: how "Use qwen3.5:9b" fixes a misspelt [model] name where it is
// written, rather than hiding it under an editor setting. Plain text in
// and out, so it is tested without VS Code.

/** A whole line to put in place of line (0-based), without its line ending. */
export interface LineEdit {
  line: number;
  text: string;
}

/**
 * The edit that makes config.toml's [model] name say to instead of from,
 * or undefined when its [model] table does not name from.
 */
export function modelNameEdit(toml: string, from: string, to: string): LineEdit | undefined {
  const lines = toml.split('\n');
  let table = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    const header = /^\s*\[([^\]]*)\]\s*(#.*)?$/.exec(line);
    if (header !== null) {
      table = header[1].trim();
      continue;
    }
    if (table !== 'model') {
      continue;
    }
    const m = /^(\s*name\s*=\s*)(["'])(.*?)\2(.*)$/.exec(line);
    if (m !== null && m[3] === from) {
      return { line: i, text: `${m[1]}${m[2]}${to}${m[2]}${m[4]}` };
    }
  }
  return undefined;
}
