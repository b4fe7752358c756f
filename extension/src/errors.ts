// How an error from the server reads in the editor: its message, the hint
// for a person, and one button per fix the server offers (the error data
// of docs/lsp-protocol.md). Plain data out, so the wording and the buttons
// are tested without VS Code; errorActions.ts performs a button.
import type { ErrorAction, ErrorData } from './protocol';

/** A button: its label and the fix it performs. */
export interface ErrorButton {
  label: string;
  action: ErrorAction;
}

export interface ErrorNotice {
  severity: 'error' | 'warning' | 'info';
  text: string;
  buttons: ErrorButton[];
}

/** VS Code shows a few buttons on a notification well; the most likely fixes come first. */
export const maxButtons = 3;

/** The last segment of a URI or path. */
function baseName(uri: string): string {
  const clean = uri.replace(/[?#].*$/, '').replace(/[\\/]+$/, '');
  return decodeURIComponent(clean.slice(clean.search(/[^\\/]*$/)));
}

/**
 * A button's label, or undefined for a fix this extension cannot perform
 * (an id from a newer server, or one missing what it needs).
 */
export function buttonLabel(a: ErrorAction, kind?: string): string | undefined {
  // An edited output: what is at stake is the person's edit.
  if (kind === 'edited-output' && a.stage) {
    switch (a.id) {
      case 'approve':
        return 'Approve my edit';
      case 'compare-model':
        return 'Compare';
      case 'run-anyway':
        return 'Overwrite';
    }
  }
  switch (a.id) {
    case 'approve':
      return a.stage ? 'Approve' : undefined;
    case 'approve-anyway':
      return a.stage ? 'Approve Anyway' : undefined;
    case 'run-stage':
      return a.stage ? 'Run Stage' : undefined;
    case 'run-anyway':
      return a.stage ? 'Run and Overwrite' : undefined;
    case 'open-file':
      return a.location ? `Open ${baseName(a.location.uri)}` : undefined;
    case 'pull-model':
      return a.model ? `Pull ${a.model}` : undefined;
    case 'start-server':
      // Without a command icm does not know how this server starts.
      if (!a.command) {
        return undefined;
      }
      return a.command.startsWith('ollama ') ? 'Start Ollama' : 'Start Server';
    case 'choose-model':
      return a.model ? `Use ${a.model}` : 'Choose Model';
    case 'set-server':
      return 'Set Server Address';
    case 'show-diff':
      return a.stage ? 'Compare' : undefined;
    case 'compare-model':
      return a.stage ? "Compare with the Model's Version" : undefined;
    case 'run-check':
      return 'Show Problems';
    case 'install-server':
      return a.url ? 'Install Ollama' : undefined;
    case 'try-demo':
      return 'Try the Demo';
    case 'trust-workspace':
      return 'Trust This Workspace';
    case 'adopt':
    case 'regenerate':
      // The answers to the server's question, in its words.
      return a.title !== '' ? a.title : undefined;
  }
  return undefined;
}

/** Kinds that are the person's call rather than a failure. */
const warnings = new Set(['verify-failed', 'edited-output', 'stale', 'not-run', 'unapproved', 'locked', 'untrusted']);

/**
 * text with the files under the workspace root named relative to it, and
 * the root itself by its folder's name: a notice is read in the
 * workspace, where "/home/ada/course/pipeline/01-scope/input.md" is
 * "pipeline/01-scope/input.md".
 */
export function relativeTo(text: string, root: string | undefined): string {
  const dir = (root ?? '').replace(/[\\/]+$/, '');
  if (dir === '') {
    return text;
  }
  const name = dir.slice(dir.search(/[^\\/]*$/));
  const quoted = dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`${quoted}(?:[\\\\/]+|(?![\\w.-]))`, 'g'), (m) => (m === dir ? name : ''));
}

/**
 * The notification for an error: the message, then the hint, and a button
 * for each fix the extension can perform, most likely first. Without error
 * data (a transport failure, an error of the language client's) it is the
 * message alone. workspace, when known, is the root its paths are named
 * relative to.
 */
export function errorNotice(message: string, data: ErrorData | undefined, workspace?: string): ErrorNotice {
  const text = relativeTo(message.charAt(0).toUpperCase() + message.slice(1), workspace);
  if (data === undefined) {
    return { severity: 'error', text, buttons: [] };
  }
  const hint = relativeTo(data.hint?.trim() ?? '', workspace);
  const buttons: ErrorButton[] = [];
  for (const action of data.actions) {
    const label = buttonLabel(action, data.kind);
    if (label !== undefined && !buttons.some((b) => b.label === label) && buttons.length < maxButtons) {
      buttons.push({ label, action });
    }
  }
  return {
    severity: data.kind === 'cancelled' ? 'info' : warnings.has(data.kind) ? 'warning' : 'error',
    text: hint ? `${text} — ${hint.charAt(0).toUpperCase()}${hint.slice(1).replace(/[.]$/, '')}${/[?!]$/.test(hint) ? '' : '.'}` : text,
    buttons,
  };
}
