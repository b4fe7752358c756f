// The settings the extension passes to the server, in the flat shape of
// docs/lsp-protocol.md rather than VS Code's nested one.
import type { ServerSettings } from './protocol';

/** The setting keys under "icm." that the server reads. */
export const serverSettingKeys = ['ollama.host', 'model', 'workflow.gate'] as const;

/** Builds initializationOptions from the icm settings; empty ones are left out so the workspace's config.toml decides. */
export function serverSettings(get: (key: string) => unknown): ServerSettings {
  const out: ServerSettings = {};
  const value = (key: string): string | undefined => {
    const v = get(key);
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const host = value('ollama.host');
  if (host !== undefined) {
    out.ollamaHost = host;
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
