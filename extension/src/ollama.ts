// Whether the model server's program is on this machine before a button
// tries to start it, and what to say when it is not. Plain data out, with
// the file system passed in, so it is tested without VS Code; the buttons
// perform in errorActions.ts and reviewFlow.ts.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where Ollama is got. */
export const ollamaDownload = 'https://ollama.com/download';

/** Whether a path is an executable file. */
export type IsExecutable = (file: string) => boolean;

/** The real file system's answer: a regular file with an execute bit (any file on Windows). */
export const isExecutableFile: IsExecutable = (file) => {
  try {
    const st = fs.statSync(file);
    return st.isFile() && (process.platform === 'win32' || (st.mode & 0o111) !== 0);
  } catch {
    return false;
  }
};

/**
 * The path of program in the folders of pathValue (a PATH), or undefined.
 * On Windows the names PATHEXT lists (.EXE, .CMD, ...) count too.
 */
export function findOnPath(
  program: string,
  pathValue: string | undefined,
  isExecutable: IsExecutable = isExecutableFile,
  platform: string = process.platform,
  pathExt: string | undefined = process.env.PATHEXT,
): string | undefined {
  const sep = platform === 'win32' ? ';' : ':';
  const join = platform === 'win32' ? path.win32.join : path.posix.join;
  const names = platform === 'win32' ? ['', ...(pathExt ?? '.EXE;.CMD;.BAT').split(';').filter((e) => e !== '')].map((e) => program + e) : [program];
  for (const dir of (pathValue ?? '').split(sep)) {
    if (dir === '') {
      continue;
    }
    for (const name of names) {
      const file = join(dir, name);
      if (isExecutable(file)) {
        return file;
      }
    }
  }
  return undefined;
}

/** The buttons of the "Ollama is not installed" notice. */
export const MissingButton = {
  install: 'Install Ollama',
  demo: 'Try the Demo',
} as const;

/**
 * What a Start button does: run the command with the variables the server
 * said to set (in the terminal's environment, whatever its shell), or say
 * its program is missing and offer the way out.
 */
export type StartPlan =
  | { kind: 'start'; command: string; env?: Record<string, string> }
  | { kind: 'missing'; program: string; text: string; buttons: string[] };

/** A word that sets a variable for the command after it: NAME=value. */
const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/;

/**
 * What starting a server with command does on this machine: the command
 * itself when its program is found; when it is not (the terminal would
 * only say "command not found" while the notice reported success), the
 * words and buttons that say so. found looks a program up. Variables the
 * command sets first, as a POSIX shell takes them
 * ("OLLAMA_MULTIUSER_CACHE=1 ollama serve": what the server sets so that
 * For each items share their computed prompt), become the plan's env.
 */
export function startPlan(command: string, found: (program: string) => boolean): StartPlan {
  const words = command.trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (words.length > 1 && assignment.test(words[0] ?? '')) {
    const [, name, value] = assignment.exec(words.shift() ?? '') ?? [];
    if (name !== undefined) {
      env[name] = value ?? '';
    }
  }
  const program = words[0] ?? '';
  if (program === '' || found(program)) {
    if (Object.keys(env).length > 0) {
      return { kind: 'start', command: words.join(' '), env };
    }
    return { kind: 'start', command };
  }
  if (program === 'ollama') {
    return {
      kind: 'missing',
      program,
      text:
        'Ollama is not installed on this machine (no `ollama` program on the PATH), so it cannot be started. ' +
        'Install it, then start it and pull the model; or try the demo first: the sample pipeline with canned answers, no model needed.',
      buttons: [MissingButton.install, MissingButton.demo],
    };
  }
  return {
    kind: 'missing',
    program,
    text: `\`${program}\` is not on this machine's PATH, so \`${command}\` cannot start the model server. Install it, or set another server address.`,
    buttons: [],
  };
}

/** The shell command that runs ICM's demo with the icm executable at icm. */
export function demoCommand(icm: string | undefined): string {
  const exe = icm ?? 'icm';
  const word = /^[\w./:=@+,-]+$/.test(exe) ? exe : `'${exe.replace(/'/g, `'\\''`)}'`;
  return `${word} demo`;
}
