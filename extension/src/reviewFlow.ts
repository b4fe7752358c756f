// The review gate in the editor: offer the output when a run ends, and ask
// before approving an output whose Verify checks failed.
import * as vscode from 'vscode';
import { type FixDeps, showError, showErrorData } from './errorActions';
import { ServerCommand, type OutputsResult, type RunFinished } from './protocol';
import { Action, runFinishedNotice, verifyFailure } from './review';
import type { IcmServer } from './server';

export class ReviewFlow {
  constructor(
    private readonly server: IcmServer,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** What performing a server error's fixes needs. */
  private get fixes(): FixDeps {
    return { server: this.server, log: this.log, approve: (workspace, stage) => this.approve(workspace, stage) };
  }

  /** Shows a server error with its hint and one button per fix. */
  showError(err: unknown, workspace: string | undefined): Promise<void> {
    return showError(err, workspace, this.fixes);
  }

  /** Tells the person a run ended and offers the next step. */
  async runFinished(ev: RunFinished): Promise<void> {
    this.log.info(`run ${ev.runId} of ${ev.stage} ended: ok=${ev.ok} cancelled=${ev.cancelled} ${ev.message ?? ''}`);
    if (!ev.ok && !ev.cancelled && ev.error !== undefined) {
      // The server said what went wrong and how to fix it.
      await showErrorData(ev.message ?? `${ev.stage} failed`, ev.error, ev.workspace, this.fixes);
      return;
    }
    const notice = runFinishedNotice(ev);
    const choice =
      notice.severity === 'error'
        ? await vscode.window.showErrorMessage(notice.text, ...notice.actions)
        : notice.severity === 'warning'
          ? await vscode.window.showWarningMessage(notice.text, ...notice.actions)
          : await vscode.window.showInformationMessage(notice.text, ...notice.actions);
    switch (choice) {
      case Action.openOutput:
        await this.openOutput(ev.workspace, ev.stage);
        break;
      case Action.approve:
        await this.approve(ev.workspace, ev.stage);
        break;
      case Action.showLogs:
        this.log.show();
        break;
      case Action.openContract:
        await this.server.refresh();
        await vscode.commands.executeCommand('icm.pipeline.openContract', { workspace: ev.workspace, stage: ev.stage });
        break;
    }
  }

  /** Approves a stage, asking first when its output failed Verify checks. */
  async approve(workspace: string, stage: string): Promise<boolean> {
    try {
      await this.server.execute(ServerCommand.approveStage, { workspace, stage });
    } catch (err) {
      const failures = verifyFailure(err);
      if (failures === undefined) {
        throw err;
      }
      const choice = await vscode.window.showWarningMessage(
        `${stage}'s output failed its Verify checks. Approve it anyway?`,
        { modal: true, detail: failures },
        Action.approveAnyway,
      );
      if (choice !== Action.approveAnyway) {
        return false;
      }
      await this.server.execute(ServerCommand.approveStage, { workspace, stage, force: true });
    }
    vscode.window.setStatusBarMessage(`$(check) ${stage} approved`, 4000);
    return true;
  }

  /** Opens a stage's outputs that exist, asking which when there are several. */
  async openOutput(workspace: string, stage: string): Promise<void> {
    const r = await this.server.execute<OutputsResult>(ServerCommand.outputs, { workspace, stage });
    const files = r.outputs.filter((o) => o.exists).map((o) => o.path);
    if (files.length === 0) {
      void vscode.window.showInformationMessage(`${stage} has no output yet. Run it first.`);
      return;
    }
    let file = files[0];
    if (files.length > 1) {
      const picked = await vscode.window.showQuickPick(
        files.map((f) => ({ label: vscode.workspace.asRelativePath(f), path: f })),
        { title: `Open an output of ${stage}` },
      );
      if (picked === undefined) {
        return;
      }
      file = picked.path;
    }
    await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
  }

  /**
   * Runs the server commands that code lenses and code actions carry, so an
   * approval from a lens asks about Verify failures too and errors are shown.
   */
  readonly interceptCommand = async (
    command: string,
    args: unknown[],
    next: (command: string, args: unknown[]) => Promise<unknown>,
  ): Promise<unknown> => {
    try {
      const a = (args[0] ?? {}) as { workspace?: string; stage?: string; force?: boolean };
      if (command === ServerCommand.approveStage && a.workspace && a.stage && a.force !== true) {
        return await this.approve(a.workspace, a.stage);
      }
      return await next(command, args);
    } catch (err) {
      void this.showError(err, (args[0] as { workspace?: string } | undefined)?.workspace);
      return undefined;
    }
  };
}
