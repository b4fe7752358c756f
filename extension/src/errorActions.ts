// Shows a server error with one button per fix, and performs the fix the
// person picks. The words and buttons come from errors.ts.
import * as vscode from 'vscode';
import { errorNotice } from './errors';
import { demoCommand, findOnPath, MissingButton, ollamaDownload, startPlan } from './ollama';
import { ServerCommand, type ConfigEdit, type ErrorAction, type ErrorData, type ModelStatus } from './protocol';
import { approvalNoteProblem, errorDataOf, messageOf } from './review';
import type { IcmServer } from './server';

/** What performing a fix needs. */
export interface FixDeps {
  server: IcmServer;
  log: vscode.LogOutputChannel;
  /** Approves with the review flow's questions (Verify failures). */
  approve(workspace: string, stage: string): Promise<boolean>;
  /** Diffs a stage's output against what the model wrote. */
  compareWithModel?(workspace: string, stage: string): Promise<void>;
  /** Pulls a model through the server, with its progress in a notification. */
  pull?(workspace: string, model: string): Promise<void>;
}

/** The settings the server's set-server and choose-model actions name, as this extension spells them. */
const settingKeys: Record<string, string> = { model: 'icm.model', ollamaHost: 'icm.ollama.host' };

/** Quotes a word for a POSIX shell when it needs it. */
function shellWord(s: string): string {
  return /^[\w./:=@+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Shows err: with its error data, the message, the hint and a button per
 * fix; otherwise the message alone. workspace is the workspace the failed
 * request was about, for the fixes that act on it.
 */
export async function showError(err: unknown, workspace: string | undefined, deps: FixDeps): Promise<void> {
  await showErrorData(messageOf(err), errorDataOf(err), workspace, deps);
}

/** showError for a message and error data that came another way (a failed run's icm/runFinished). */
export async function showErrorData(
  message: string,
  data: ReturnType<typeof errorDataOf>,
  workspace: string | undefined,
  deps: FixDeps,
): Promise<void> {
  const notice = errorNotice(message, data, workspace);
  deps.log.error(notice.text);
  const labels = notice.buttons.map((b) => b.label);
  const show =
    notice.severity === 'error'
      ? vscode.window.showErrorMessage
      : notice.severity === 'warning'
        ? vscode.window.showWarningMessage
        : vscode.window.showInformationMessage;
  const choice = await show(notice.text, ...labels);
  const picked = notice.buttons.find((b) => b.label === choice);
  if (picked === undefined) {
    return;
  }
  try {
    await performFix(picked.action, workspace, deps, data);
  } catch (fixErr) {
    // A fix that fails says why, with its own fixes.
    await showError(fixErr, workspace, deps);
  }
}

/** Performs one fix; data is the error it fixes, when there is one. */
export async function performFix(a: ErrorAction, workspace: string | undefined, deps: FixDeps, data?: ErrorData): Promise<void> {
  const { server } = deps;
  const stage = a.stage ?? '';
  switch (a.id) {
    case 'approve':
      if (workspace) {
        await deps.approve(workspace, stage);
      }
      return;
    case 'approve-anyway': {
      const note = await askApprovalNote(stage);
      if (note === undefined) {
        return;
      }
      await server.execute(ServerCommand.approveStage, { workspace, stage, force: true, note });
      vscode.window.setStatusBarMessage(`$(check) ${stage} approved`, 4000);
      return;
    }
    case 'run-stage':
      await server.execute(ServerCommand.runStage, { workspace, stage });
      return;
    case 'run-anyway':
      await server.execute(ServerCommand.runStage, { workspace, stage, force: true });
      return;
    case 'adopt':
    case 'regenerate':
      // The answer to the question about outputs committed with the
      // workspace: the same run again, with it.
      await server.execute(stage !== '' ? ServerCommand.runStage : ServerCommand.runNext, { workspace, stage, committed: a.id });
      return;
    case 'open-file':
      if (a.location) {
        const { start } = a.location.range;
        const at = new vscode.Position(start.line, start.character);
        await vscode.window.showTextDocument(vscode.Uri.parse(a.location.uri), { selection: new vscode.Range(at, at), preview: false });
      }
      return;
    case 'pull-model': {
      if (deps.pull !== undefined && workspace !== undefined && a.model) {
        await deps.pull(workspace, a.model);
        return;
      }
      const icm = server.executable() ?? 'icm';
      const term = vscode.window.createTerminal({ name: `ICM: pull ${a.model}`, cwd: workspace, env: a.url ? { OLLAMA_HOST: a.url } : {} });
      term.show();
      term.sendText(`${shellWord(icm)} pull ${shellWord(a.model ?? '')}`);
      return;
    }
    case 'start-server':
      await startServer(a.command ?? '', deps);
      return;
    case 'install-server':
      await vscode.env.openExternal(vscode.Uri.parse(a.url ?? ollamaDownload));
      return;
    case 'try-demo':
      runDemo(server);
      return;
    case 'choose-model':
      if (a.model) {
        const missing = data?.actions.find((x) => x.id === 'pull-model')?.model ?? (workspace && (await missingModel(workspace, server)));
        await useModel(deps, workspace, missing || undefined, a.model);
        return;
      }
      if (workspace !== undefined && (a.setting ?? 'model') === 'model' && (await pickModel(workspace, deps))) {
        return;
      }
      await vscode.commands.executeCommand('workbench.action.openSettings', settingKeys[a.setting ?? 'model'] ?? 'icm.model');
      return;
    case 'set-server':
      await vscode.commands.executeCommand('workbench.action.openSettings', settingKeys[a.setting ?? 'ollamaHost'] ?? 'icm.ollama.host');
      return;
    case 'show-diff':
      await vscode.commands.executeCommand('icm.pipeline.compareOutput', { kind: 'stage', workspace, stage });
      return;
    case 'compare-model':
      if (deps.compareWithModel !== undefined && workspace !== undefined) {
        await deps.compareWithModel(workspace, stage);
      }
      return;
    case 'run-check':
      await vscode.commands.executeCommand('workbench.actions.view.problems');
      return;
    case 'trust-workspace':
      await vscode.commands.executeCommand('icm.trustWorkspace', {
        workspace: a.location ? vscode.Uri.parse(a.location.uri).fsPath : workspace,
      });
      return;
  }
}

/**
 * Starts the model server with command in a terminal, when its program is
 * on this machine; otherwise says so, with how to install Ollama and the
 * demo to try meanwhile, instead of a terminal saying "command not found"
 * while a notice reports success. Returns whether it started.
 */
export async function startServer(command: string, deps: FixDeps): Promise<boolean> {
  const plan = startPlan(command, (program) => findOnPath(program, process.env.PATH) !== undefined);
  if (plan.kind === 'missing') {
    deps.log.warn(plan.text);
    const choice = await vscode.window.showWarningMessage(plan.text, ...plan.buttons);
    if (choice === MissingButton.install) {
      await vscode.env.openExternal(vscode.Uri.parse(ollamaDownload));
    } else if (choice === MissingButton.demo) {
      runDemo(deps.server);
    }
    return false;
  }
  const term = vscode.window.createTerminal({ name: 'ICM: model server', env: plan.env });
  term.show();
  term.sendText(plan.command);
  return true;
}

/** Runs ICM's demo (the sample pipeline with canned answers) in a terminal. */
export function runDemo(server: IcmServer): void {
  const term = vscode.window.createTerminal({ name: 'ICM: demo' });
  term.show();
  term.sendText(demoCommand(server.executable()));
}

/**
 * Makes the workspace use model instead of missing (the name that failed,
 * when known). A misspelt [model] name is fixed in config.toml, where it
 * is written (and where icm on the command line reads it): an editor
 * setting over it would leave the squiggle and the CLI's failure.
 */
async function useModel(deps: FixDeps, workspace: string | undefined, missing: string | undefined, model: string): Promise<void> {
  if (missing && workspace && (await fixConfigModel(deps, workspace, missing, model))) {
    return;
  }
  await vscode.workspace.getConfiguration('icm').update('model', model, vscode.ConfigurationTarget.Workspace);
  vscode.window.setStatusBarMessage(`$(check) ICM now uses ${model}`, 4000);
}

/** The model the workspace runs when its server lacks it (a failed pull names no pull to redo). */
async function missingModel(workspace: string, server: IcmServer): Promise<string | undefined> {
  try {
    const r = await server.execute<ModelStatus>(ServerCommand.modelStatus, { workspace });
    return r.reachable && !r.installed ? r.model : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Offers the models the workspace's server has and uses the one picked;
 * false when the server could not say (the caller opens the setting).
 */
async function pickModel(workspace: string, deps: FixDeps): Promise<boolean> {
  const r = await deps.server.execute<ModelStatus>(ServerCommand.modelStatus, { workspace });
  if (!r.reachable || r.models.length === 0) {
    return false;
  }
  const items = r.models.map((m) => ({ label: m, description: m === r.suggestion ? 'probably meant' : undefined }));
  const first = items.findIndex((i) => i.label === r.suggestion);
  if (first > 0) {
    items.unshift(...items.splice(first, 1));
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: `Use which model${r.installed ? '' : ` instead of ${r.model}`}?`,
    placeHolder: `the models the server at ${r.url} has`,
  });
  if (picked === undefined) {
    return true; // the person chose nothing: nothing to open either
  }
  await useModel(deps, workspace, r.installed ? undefined : r.model, picked.label);
  return true;
}

/**
 * Makes the workspace's config.toml name model instead of missing, when
 * that is where missing comes from (no icm.model setting over it); false
 * when it is not. The server makes the edit (icm.editConfig): the config
 * package that reads, highlights and checks config.toml places the key.
 */
async function fixConfigModel({ server, log }: FixDeps, workspace: string, missing: string, model: string): Promise<boolean> {
  const setting = vscode.workspace.getConfiguration('icm').get<string>('model')?.trim() ?? '';
  if (setting !== '') {
    return false;
  }
  const uri = vscode.Uri.joinPath(vscode.Uri.file(workspace), 'config.toml');
  let doc: vscode.TextDocument;
  try {
    // Open, the buffer goes to the server, which edits what the editor has.
    doc = await vscode.workspace.openTextDocument(uri);
  } catch {
    return false;
  }
  let r: ConfigEdit;
  try {
    r = await server.execute<ConfigEdit>(ServerCommand.editConfig, { workspace, table: 'model', key: 'name', value: model, current: missing });
  } catch (err) {
    log.warn(`config.toml not edited: ${messageOf(err)}`);
    return false;
  }
  const version = r.edit?.documentChanges[0]?.textDocument.version ?? null;
  if (r.edit === null || (version === null ? doc.isDirty : version !== doc.version)) {
    // Nothing to edit, or an edit of a text the buffer no longer has.
    log.info(`config.toml not edited: ${r.reason ?? 'the buffer changed'}`);
    return false;
  }
  // A buffer with edits of the person's own is left unsaved with this one
  // in it (the server reads buffers); a clean one is saved for the CLI.
  const wasDirty = doc.isDirty;
  if (!(await vscode.workspace.applyEdit(await server.asWorkspaceEdit(r.edit)))) {
    return false;
  }
  if (!wasDirty) {
    await doc.save();
  }
  vscode.window.setStatusBarMessage(`$(check) config.toml now names ${model}`, 4000);
  return true;
}

/** Asks why a stage's output is fine past its failing checks; undefined when the person cancels. */
export async function askApprovalNote(stage: string): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: `Approve ${stage} anyway`,
    prompt: 'Why is the output fine as it is? The note is kept with the approval.',
    ignoreFocusOut: true,
    validateInput: (v) => approvalNoteProblem(v),
  });
}
