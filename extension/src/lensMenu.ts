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

/**
 * The hover of a lens: a state lens's words are short ("awaiting review"),
 * and the state in full (the menu's title) shows when the pointer rests
 * on it. LSP 3.16 commands carry no tooltip, so the extension adds it.
 */
export function lensTooltip(command: { command: string; arguments?: unknown[] } | undefined): string | undefined {
  if (command?.command !== lensMenuCommand) {
    return undefined;
  }
  const menu = command.arguments?.[0] as LensMenu | undefined;
  return typeof menu?.title === 'string' && menu.title !== '' ? menu.title : undefined;
}
