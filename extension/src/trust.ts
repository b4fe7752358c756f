// Workspace trust in the editor. VS Code's Restricted Mode only lowers
// trust: the server is told the editor's state, and while it is
// restricted icm acts for no workspace. Trusting the folder in VS Code
// does not trust an ICM workspace either: "Trust This Workspace" shows
// icm's own list of what it would run, contact and read, and grants
// exactly that list (the record `icm trust` writes), at once.
import * as vscode from 'vscode';
import type { PipelineModel } from './model';
import { workspaceOf } from './present';
import { ServerCommand, type TrustInfo } from './protocol';
import type { IcmServer } from './server';
import { nothingToTrust, trustQuestion, trustedNotice } from './trustPresent';

export class TrustFlow implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  /** The workspace to offer once VS Code trusts the folder. */
  private pending: string | undefined;

  constructor(
    private readonly server: IcmServer,
    private readonly model: PipelineModel,
    private readonly log: vscode.LogOutputChannel,
    /** icm trusts a workspace now (its agents' server may act for it). */
    private readonly granted: () => Promise<void> = async () => undefined,
  ) {
    this.disposables.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.editorTrusted()),
      vscode.commands.registerCommand('icm.trustWorkspace', (arg?: { workspace?: string }) => this.trust(arg?.workspace)),
    );
  }

  /** VS Code now trusts the folder: tell the server, and go on with the workspace the person asked to trust. */
  private async editorTrusted(): Promise<void> {
    await this.server.notifyTrust(true);
    await this.server.refresh();
    const ws = this.pending ?? this.model.workspaces().find((w) => w.trust !== undefined && !w.trust.allowed)?.workspace;
    this.pending = undefined;
    if (ws !== undefined) {
      await this.trust(ws);
    }
  }

  /** Shows what trusting the workspace allows, and trusts it when the person agrees. */
  async trust(workspace?: string): Promise<void> {
    const ws = workspace ?? (await this.pick());
    if (ws === undefined) {
      return;
    }
    if (!vscode.workspace.isTrusted) {
      this.pending = ws;
      const manage = 'Manage Workspace Trust';
      const choice = await vscode.window.showWarningMessage(
        'VS Code is in Restricted Mode, which icm never overrides. Trust the folder in VS Code first; icm then shows what it would run, contact and read.',
        manage,
      );
      if (choice === manage) {
        await vscode.commands.executeCommand('workbench.trust.manage');
      }
      return;
    }
    let info = await this.server.execute<TrustInfo>(ServerCommand.trustList, { workspace: ws });
    const done = nothingToTrust(info);
    if (done !== undefined) {
      void vscode.window.showInformationMessage(done);
      return;
    }
    const q = trustQuestion(info);
    const trustIt = 'Trust';
    const choice = await vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail }, trustIt);
    if (choice !== trustIt) {
      return;
    }
    info = await this.server.execute<TrustInfo>(ServerCommand.trustGrant, { workspace: ws, hash: info.hash });
    this.log.info(`trusted ${ws}: ${info.parts.length} parts`);
    await this.server.refresh();
    await this.granted();
    void vscode.window.showInformationMessage(trustedNotice(info));
  }

  /** The workspace to trust: the active file's, else the one not trusted, else a pick. */
  private async pick(): Promise<string | undefined> {
    const list = this.model.workspaces();
    const active = workspaceOf(list, vscode.window.activeTextEditor?.document.uri.fsPath);
    if (active !== undefined) {
      return active.workspace;
    }
    const waiting = list.filter((w) => w.trust !== undefined && !w.trust.allowed);
    if (waiting.length === 1 || list.length === 1) {
      return (waiting[0] ?? list[0]).workspace;
    }
    const picked = await vscode.window.showQuickPick(
      (waiting.length > 0 ? waiting : list).map((w) => ({ label: w.name, description: w.trust?.summary, ws: w.workspace })),
      { title: 'Trust which ICM workspace?' },
    );
    return picked?.ws;
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
