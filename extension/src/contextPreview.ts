// Shows a stage's assembled context as a readable preview: the server's
// Markdown rendered by VS Code's own Markdown support, in a panel titled
// "Assembled context: STAGE", that follows the contract as it changes.
// Read as raw Markdown, its token table broke into fragments beside
// another editor.
import * as vscode from 'vscode';
import { previewHtml } from './contextPresent';
import { ServerCommand, type ProbeResult, type VirtualDocumentResult } from './protocol';
import { messageOf } from './review';
import type { IcmServer } from './server';

export class ContextPreview implements vscode.Disposable {
  /** The open panels, by their icm-context: URI. */
  private readonly panels = new Map<string, { panel: vscode.WebviewPanel; title: string }>();

  constructor(
    private readonly server: IcmServer,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Opens (or brings forward) the assembled context of a stage, or of one For each item. */
  async show(workspace: string, stage: string, item?: number): Promise<void> {
    const r = await this.server.execute<ProbeResult>(ServerCommand.probe, { workspace, stage, ...(item !== undefined && item > 0 ? { item } : {}) });
    let open = this.panels.get(r.uri);
    if (open === undefined) {
      const panel = vscode.window.createWebviewPanel('icm.context', r.title, vscode.ViewColumn.Beside, { enableScripts: false, enableFindWidget: true });
      open = { panel, title: r.title };
      this.panels.set(r.uri, open);
      panel.onDidDispose(() => this.panels.delete(r.uri));
    } else {
      open.panel.reveal();
    }
    open.panel.title = open.title = r.title;
    await this.render(open.panel, r.content, r.title);
  }

  /** The server says an icm-context: document reads differently: an open preview follows. */
  async changed(uri: string): Promise<void> {
    const open = this.panels.get(uri);
    if (open === undefined) {
      return;
    }
    try {
      const r = await this.server.execute<VirtualDocumentResult>(ServerCommand.virtualDocument, { uri });
      await this.render(open.panel, r.text, open.title);
    } catch (err) {
      this.log.warn(`the assembled context ${uri} was not updated: ${messageOf(err)}`);
    }
  }

  private async render(panel: vscode.WebviewPanel, markdown: string, title: string): Promise<void> {
    let body: string;
    try {
      body = (await vscode.commands.executeCommand<string>('markdown.api.render', markdown)) ?? '';
    } catch (err) {
      // Without VS Code's Markdown support the text is shown as it is.
      this.log.warn(`markdown.api.render: ${messageOf(err)}`);
      body = `<pre>${markdown.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</pre>`;
    }
    panel.webview.html = previewHtml(body, { title, cspSource: panel.webview.cspSource });
  }

  dispose(): void {
    for (const { panel } of this.panels.values()) {
      panel.dispose();
    }
    this.panels.clear();
  }
}
