// A state lens opens the actions of its line as a quick pick: a line holds
// at most two short lenses (one action and the state), and the rest of
// what a person may do there is one click further, under the state. The
// server sends the actions in the lens's command (docs/lsp-protocol.md).

/** One action of a lens menu, as the server sends it. */
export interface LensAction {
  title: string;
  command: string;
  arguments?: unknown[];
}

/** The argument of the client command icm.lens.actions. */
export interface LensMenu {
  /** The line's state in full, shown as the picker's title. */
  title: string;
  actions: LensAction[];
}

/** The client command a state lens runs. */
export const lensMenuCommand = 'icm.lens.actions';

/** The picker's rows: the actions the extension can run, in the server's order. */
export function menuItems(menu: LensMenu | undefined): { label: string; action: LensAction }[] {
  if (menu === undefined || !Array.isArray(menu.actions)) {
    return [];
  }
  return menu.actions
    .filter((a) => typeof a?.title === 'string' && a.title !== '' && typeof a.command === 'string' && a.command !== '')
    .map((a) => ({ label: a.title, action: a }));
}

/** A lens's command, as the language client gives it. */
export interface LensCommand {
  title: string;
  command: string;
  arguments?: unknown[];
  tooltip?: string;
}

/**
 * How a server lens shows: a state lens ("awaiting review") carries the
 * state in full and the line's other actions in its argument (state,
 * actions; docs/lsp-protocol.md); here it opens those actions as a picker
 * and shows the state in full on hover (LSP 3.16 commands carry no
 * tooltip). Any other lens is left as it is.
 */
export function presentLens(command: LensCommand): LensCommand {
  const arg = command.arguments?.[0] as { state?: unknown; actions?: unknown } | undefined;
  if (arg === undefined || arg === null || typeof arg !== 'object') {
    return command;
  }
  const state = typeof arg.state === 'string' && arg.state !== '' ? arg.state : undefined;
  const actions = Array.isArray(arg.actions) ? (arg.actions as LensAction[]) : [];
  const menu: LensMenu = { title: state ?? command.title, actions };
  if (menuItems(menu).length > 0) {
    return { title: command.title, command: lensMenuCommand, arguments: [menu], tooltip: menu.title };
  }
  return state === undefined ? command : { ...command, tooltip: state };
}
