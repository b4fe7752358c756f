// Read-only documents the server provides: a stage's assembled context
// (icm-context:), one model call's request and reply (icm-call:) and the
// model's version of an output (icm-model:). The server writes nothing to
// disk for them, and says when one changed (a contract was edited), so an
// open one follows.
import * as vscode from 'vscode';
import { ServerCommand, VirtualScheme, type VirtualDocumentResult } from './protocol';
import type { IcmServer } from './server';

class Provider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly server: IcmServer) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const r = await this.server.execute<VirtualDocumentResult>(ServerCommand.virtualDocument, { uri: uri.toString() });
    return r.text;
  }

  fire(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }
}

/** Registers the schemes; the returned function tells an open document it changed. */
export function registerVirtualDocs(server: IcmServer): { disposable: vscode.Disposable; changed: (uri: string) => void } {
  const provider = new Provider(server);
  const subs = Object.values(VirtualScheme).map((scheme) => vscode.workspace.registerTextDocumentContentProvider(scheme, provider));
  return {
    disposable: vscode.Disposable.from(...subs),
    changed: (uri) => provider.fire(vscode.Uri.parse(uri)),
  };
}
