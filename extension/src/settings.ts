// The settings the extension passes to the server, in the flat shape of
// docs/lsp-protocol.md rather than VS Code's nested one.
import type { ServerSettings } from './protocol';

/** The setting keys under "icm." that the server reads. */
export const serverSettingKeys = ['ollama.host', 'model', 'workflow.gate'] as const;

/** Where a setting's values are set, as VS Code's inspect() says. */
export interface SettingScopes {
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * Builds initializationOptions from the icm settings; empty ones are left
 * out so the workspace's config.toml decides. inspect, when given, says
 * where a value comes from: a model server the workspace's own settings
 * name is marked workspaceScoped, and icm uses it only once the workspace
 * is trusted.
 */
export function serverSettings(get: (key: string) => unknown, inspect?: (key: string) => SettingScopes | undefined): ServerSettings {
  const out: ServerSettings = {};
  const value = (key: string): string | undefined => {
    const v = get(key);
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const host = value('ollama.host');
  if (host !== undefined) {
    out.ollamaHost = host;
    const scopes = inspect?.('ollama.host');
    const own = [scopes?.workspaceFolderValue, scopes?.workspaceValue].some((v) => typeof v === 'string' && v.trim() === host);
    if (own) {
      out.workspaceScoped = ['ollamaHost'];
    }
  }
  const model = value('model');
  if (model !== undefined) {
    out.model = model;
  }
  const gate = value('workflow.gate');
  if (gate !== undefined) {
    out.gate = gate;
  }
  return out;
}
