// The review gate in the editor: say how a run ended and offer the next
// step or the fixes, ask before approving an output whose Verify checks
// failed and before re-running an approved stage, compare an edit with the
// model's version, and re-run one For each item with a note.
import * as vscode from 'vscode';
import { askApprovalNote, type FixDeps, performFix, showError, showErrorData, startServer } from './errorActions';
import type { PipelineModel } from './model';
import { Button, runNotice, type NoticeAction } from './notices';
import { ServerCommand, type CompareResult, type ErrorAction, type ErrorData, type OutputsResult, type RunFinished } from './protocol';
import { verifyFailure } from './review';
import { rerunQuestion } from './rerun';
import type { IcmServer } from './server';

export class ReviewFlow {
  constructor(
    private readonly server: IcmServer,
    private readonly log: vscode.LogOutputChannel,
    private readonly model: PipelineModel,
    private readonly revealRun: (workspace: string, runId: string) => Promise<void>,
  ) {}

  /** What performing a server error's fixes needs. */
  private get fixes(): FixDeps {
    return {
      server: this.server,
      log: this.log,
      approve: (workspace, stage) => this.approve(workspace, stage),
      compareWithModel: (workspace, stage) => this.compareWithModel(workspace, stage),
      pull: (workspace, model) => this.pull(undefined, model, workspace),
    };
  }

  /** Performs one fix the server offered (a Doctor line's button). */
  performFix(action: ErrorAction, workspace: string): Promise<void> {
    return performFix(action, workspace, this.fixes);
  }

  /** Shows a server error with its hint and one button per fix. */
  showError(err: unknown, workspace: string | undefined): Promise<void> {
    return showError(err, workspace, this.fixes);
  }

  /** Shows a problem a result carries (icm.modelStatus's) as an error is shown. */
  showProblem(message: string, data: ErrorData, workspace: string): Promise<void> {
    return showErrorData(message, data, workspace, this.fixes);
  }

  /** Tells the person a run ended and offers the next step or the fixes. */
  async runFinished(ev: RunFinished): Promise<void> {
    this.log.info(`run ${ev.runId} of ${ev.stage || '(no stage)'} ended: ok=${ev.ok} cancelled=${ev.cancelled} ${ev.message ?? ''}`);
    // Nothing ran because a stage waits: its buttons act on that stage.
    const next = ev.nothingRan === true && ev.stage === '' ? this.model.get(ev.workspace)?.next : undefined;
    if (next?.stage !== undefined && next.stage !== '' && next.action === 'approve') {
      ev = { ...ev, stage: next.stage };
    }
    const notice = runNotice(ev, next);
    const titles = notice.actions.map((a) => a.title);
    const choice =
      notice.severity === 'error'
        ? await vscode.window.showErrorMessage(notice.text, ...titles)
        : notice.severity === 'warning'
          ? await vscode.window.showWarningMessage(notice.text, ...titles)
          : await vscode.window.showInformationMessage(notice.text, ...titles);
    const action = notice.actions.find((a) => a.title === choice);
    if (action !== undefined) {
      try {
        await this.act(ev, action);
      } catch (err) {
        await this.showError(err, ev.workspace);
      }
    }
  }

  /** Does what a notice's button says: one of its own, or a server fix. */
  private async act(ev: RunFinished, a: NoticeAction): Promise<void> {
    switch (a.id) {
      case Button.openOutput:
        return this.openOutput(ev.workspace, ev.stage);
      case Button.approve:
        await this.approve(ev.workspace, ev.stage);
        return;
      case Button.showRun:
        return this.revealRun(ev.workspace, ev.runId);
      case Button.showLogs:
        this.log.show();
        return;
      case Button.retry:
        return this.retry(ev, false);
      case 'start-server':
        return this.startServer(ev, a);
    }
    if (a.fix !== undefined) {
      await performFix({ ...a.fix, stage: a.fix.stage ?? ev.stage }, ev.workspace, this.fixes, ev.error);
    }
  }

  /** Runs the stage of a notice again (or the next stage when none was named). */
  private async retry(ev: RunFinished, force: boolean): Promise<void> {
    if (ev.stage === '') {
      await this.server.execute(ServerCommand.runNext, { workspace: ev.workspace });
      return;
    }
    if (ev.item !== undefined && ev.item > 0) {
      await this.server.execute(ServerCommand.runItem, { workspace: ev.workspace, stage: ev.stage, item: ev.item });
      return;
    }
    await this.server.execute(ServerCommand.runStage, { workspace: ev.workspace, stage: ev.stage, force });
  }

  /** Starts the model server in a terminal, then offers to run again. */
  private async startServer(ev: RunFinished, a: NoticeAction): Promise<void> {
    const command = a.fix?.command;
    if (command === undefined || command === '') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'icm.ollama.host');
      return;
    }
    if (!(await startServer(command, this.fixes))) {
      return; // its program is not here: the notice said so and what to do
    }
    const again = await vscode.window.showInformationMessage(`Started \`${command}\` in a terminal. Run ${ev.stage || 'the next stage'} again once it answers?`, Button.retry);
    if (again === Button.retry) {
      await this.retry(ev, false);
    }
  }

  /** Pulls a model onto the server with its progress, then offers to run again. */
  async pull(ev: RunFinished | undefined, model: string | undefined, workspace?: string): Promise<void> {
    const ws = ev?.workspace ?? workspace ?? this.model.workspaces()[0]?.workspace;
    if (ws === undefined) {
      throw new Error('no ICM workspace is open');
    }
    // The server reports the download as progress, in a notification.
    const r = await this.server.execute<{ model: string }>(ServerCommand.pullModel, { workspace: ws, model: model ?? '' });
    if (ev === undefined) {
      void vscode.window.showInformationMessage(`${r.model} is on the model server.`);
      return;
    }
    const again = await vscode.window.showInformationMessage(`${r.model} is on the model server. Run ${ev.stage || 'the next stage'} again?`, Button.retry);
    if (again === Button.retry) {
      await this.retry(ev, false);
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
        'Approve Anyway',
      );
      if (choice !== 'Approve Anyway') {
        return false;
      }
      const note = await askApprovalNote(stage);
      if (note === undefined) {
        return false;
      }
      await this.server.execute(ServerCommand.approveStage, { workspace, stage, force: true, note });
    }
    vscode.window.setStatusBarMessage(`$(check) ${stage} approved`, 4000);
    return true;
  }

  /**
   * Runs a stage, asking first when it is approved: a new output makes the
   * stages that read it stale, and the question names them.
   */
  async runStage(workspace: string, stage: string, force = false): Promise<boolean> {
    const ws = this.model.get(workspace);
    const st = ws?.stages.find((s) => s.name === stage);
    const q = st !== undefined ? rerunQuestion(st, ws?.stages ?? []) : undefined;
    if (q !== undefined) {
      const choice = await vscode.window.showWarningMessage(q.text, { modal: true, detail: q.detail }, q.confirm);
      if (choice !== q.confirm) {
        return false;
      }
    }
    await this.server.execute(ServerCommand.runStage, { workspace, stage, force });
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
   * Diffs an output as it is against what the model wrote; with proposal,
   * the file at path as it is against the change the stage's run proposes
   * to it (a new file opens alone).
   */
  async compareWithModel(workspace: string, stage?: string, path?: string, proposal = false): Promise<void> {
    const r = await this.server.execute<CompareResult>(ServerCommand.compareOutput, { workspace, stage: stage ?? '', path: path ?? '', proposal });
    if (r.model === '') {
      await vscode.window.showTextDocument(vscode.Uri.parse(r.current), { preview: true });
      return;
    }
    await vscode.commands.executeCommand('vscode.diff', vscode.Uri.parse(r.model), vscode.Uri.parse(r.current), r.title);
  }

  /** Runs one For each item again, with an optional note for the model. */
  async rerunItem(workspace: string, stage: string, item: number, title: string): Promise<void> {
    const note = await vscode.window.showInputBox({
      title: `Re-run ${title} (${stage}, item ${item})`,
      prompt: 'A note for the model about this item (optional): what to change. The other items keep your edits.',
      placeHolder: 'e.g. shorter, and name the default port',
      ignoreFocusOut: true,
    });
    if (note === undefined) {
      return;
    }
    await this.server.execute(ServerCommand.runItem, { workspace, stage, item, note });
  }

  /**
   * Runs the server commands that code lenses and code actions carry, so an
   * approval from a lens asks about Verify failures, a re-run of an
   * approved stage asks first, and errors are shown.
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
      if (command === ServerCommand.runStage && a.workspace && a.stage) {
        return await this.runStage(a.workspace, a.stage, a.force === true);
      }
      return await next(command, args);
    } catch (err) {
      void this.showError(err, (args[0] as { workspace?: string } | undefined)?.workspace);
      return undefined;
    }
  };
}
