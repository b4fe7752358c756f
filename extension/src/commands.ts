// The palette and view commands. Each one finds the workspace and stage it
// acts on (from the view node it was run on, the active editor, or a
// picker) and asks the server; the server does the work.
import * as vscode from 'vscode';
import { formatMoment } from './format';
import { lensMenuCommand, menuItems, type LensMenu } from './lensMenu';
import type { PipelineModel } from './model';
import type { PipelineNode } from './pipelineView';
import { legendItems, modelStatusText, pickOrder, workspaceOf } from './present';
import {
  ServerCommand,
  type DoctorResult,
  type ItemRef,
  type SetupPlan,
  type ModelStatus,
  type OutputsResult,
  type StageStatus,
  type WorkspaceStatus,
} from './protocol';
import { comparisons, messageOf, parseHistoryTime } from './review';
import { doctorItems, doctorTitle } from './doctor';
import { setupAnswers, setupDone, setupPrompt } from './setup';
import type { ReviewFlow } from './reviewFlow';
import type { IcmServer } from './server';

interface Deps {
  server: IcmServer;
  model: PipelineModel;
  review: ReviewFlow;
  log: vscode.LogOutputChannel;
  runs: { refresh: () => Promise<void>; reveal: (workspace: string, runId: string) => Promise<void> };
  /** Opens a stage's assembled context. */
  preview: { show: (workspace: string, stage: string, item?: number) => Promise<void> };
  /** The setup questions may have changed (the walkthrough's step follows them). */
  setupChanged?: () => void;
}

interface StageRef {
  ws: WorkspaceStatus;
  stage: StageStatus;
}

export function registerCommands({ server, model, review, log, runs, preview, setupChanged }: Deps): vscode.Disposable {
  const activeFile = () => vscode.window.activeTextEditor?.document.uri.fsPath;

  const pickWorkspace = async (prefer?: (ws: WorkspaceStatus) => boolean): Promise<WorkspaceStatus | undefined> => {
    const list = model.workspaces();
    if (list.length === 0) {
      throw new Error('no ICM workspace is open (a folder with numbered stage folders, such as pipeline/01-scope/CONTEXT.md or stages/01-scope/CONTEXT.md)');
    }
    const preferred = prefer ? list.filter(prefer) : [];
    const chosen = workspaceOf(list, activeFile()) ?? (preferred.length === 1 ? preferred[0] : undefined);
    if (chosen !== undefined || list.length === 1) {
      return chosen ?? list[0];
    }
    const picked = await vscode.window.showQuickPick(
      list.map((ws) => ({ label: ws.name, description: ws.workspace, ws })),
      { title: 'ICM workspace' },
    );
    return picked?.ws;
  };

  const pickStage = async (
    arg: unknown,
    title: string,
    filter: (st: StageStatus) => boolean = () => true,
    none = 'no stage fits',
  ): Promise<StageRef | undefined> => {
    const node = arg as PipelineNode | undefined;
    if (node?.kind === 'stage') {
      const ws = model.get(node.workspace);
      const stage = ws?.stages.find((s) => s.name === node.stage);
      if (ws !== undefined && stage !== undefined) {
        return { ws, stage };
      }
    }
    const ws = await pickWorkspace();
    if (ws === undefined) {
      return undefined;
    }
    const candidates = pickOrder(ws, ws.stages.filter(filter), activeFile());
    if (candidates.length === 0) {
      void vscode.window.showInformationMessage(`${none.charAt(0).toUpperCase()}${none.slice(1)} in ${ws.name}.`);
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      candidates.map((st) => ({ label: st.name, description: st.face.label, detail: st.reason, st })),
      { title },
    );
    return picked && { ws, stage: picked.st };
  };

  const commands: Record<string, (arg?: unknown) => Promise<unknown>> = {
    'icm.pipeline.runNext': async () => {
      const ws = await pickWorkspace();
      if (ws) {
        await server.execute(ServerCommand.runNext, { workspace: ws.workspace });
      }
    },
    'icm.pipeline.runStage': async (arg) => {
      const ref = await pickStage(arg, 'Run stage');
      if (ref) {
        await review.runStage(ref.ws.workspace, ref.stage.name);
      }
    },
    'icm.pipeline.runAll': async () => {
      const ws = await pickWorkspace();
      if (ws === undefined) {
        return;
      }
      const choice = await vscode.window.showWarningMessage(
        `Run every remaining stage of ${ws.name}?`,
        { modal: true, detail: 'Stages run one after another without stopping at their review gates: each reads the output of the one before it as the model wrote it, before you have reviewed it.' },
        'Run All',
      );
      if (choice === 'Run All') {
        await server.execute(ServerCommand.runAll, { workspace: ws.workspace });
      }
    },
    'icm.pipeline.approve': async (arg) => {
      const ref = await pickStage(arg, 'Approve stage', (st) => st.status === 'awaiting-review', 'no stage is awaiting review');
      if (ref) {
        await review.approve(ref.ws.workspace, ref.stage.name);
      }
    },
    'icm.pipeline.showContext': async (arg) => {
      const ref = await pickStage(arg, 'Show the assembled context of');
      if (ref) {
        await preview.show(ref.ws.workspace, ref.stage.name);
      }
    },
    'icm.pipeline.showStatus': async () => {
      const ws = await pickWorkspace();
      if (ws === undefined) {
        return;
      }
      const picked = await vscode.window.showQuickPick(
        ws.stages.map((st) => ({ label: st.name, description: st.face.label, detail: st.reason, st })),
        { title: `ICM ${ws.name}`, placeHolder: `Next: ${ws.next?.message ?? 'nothing'}` },
      );
      if (picked) {
        await vscode.window.showTextDocument(vscode.Uri.file(picked.st.contract));
      }
    },
    'icm.pipeline.showLegend': async () => {
      await vscode.window.showQuickPick(legendItems(model.states()), { title: 'ICM: what each stage state means', placeHolder: 'The words and icons of the lenses, the Pipeline view and the status bar' });
    },
    'icm.pipeline.openOutput': async (arg) => {
      const ref = await pickStage(arg, 'Open the output of', (st) => (st.lastRun ?? '') !== '', 'no stage has run yet');
      if (ref) {
        await review.openOutput(ref.ws.workspace, ref.stage.name);
      }
    },
    'icm.pipeline.compareOutput': async (arg) => {
      const ref = await pickStage(arg, 'Compare the output of', (st) => (st.lastRun ?? '') !== '', 'no stage has run yet');
      if (ref === undefined) {
        return;
      }
      const r = await server.execute<OutputsResult>(ServerCommand.outputs, { workspace: ref.ws.workspace, stage: ref.stage.name });
      const pairs = comparisons(r);
      if (pairs.length === 0) {
        void vscode.window.showInformationMessage(`No earlier output of ${ref.stage.name} is kept in history yet.`);
        return;
      }
      const pair =
        pairs.length === 1
          ? pairs[0]
          : (await vscode.window.showQuickPick(pairs.map((p) => ({ label: p.label, p })), { title: 'Compare which output?' }))?.p;
      if (pair) {
        const t = parseHistoryTime(pair.time);
        const when = t !== undefined ? formatMoment(t, new Date()) : pair.time;
        await vscode.commands.executeCommand(
          'vscode.diff',
          vscode.Uri.file(pair.previous),
          vscode.Uri.file(pair.current),
          `${pair.label} (version replaced ${when}) ↔ current`,
        );
      }
    },
    'icm.pipeline.cancel': async () => {
      const ws = await pickWorkspace((w) => w.running !== null && w.running !== undefined);
      if (ws) {
        const r = await server.execute<{ cancelled: boolean }>(ServerCommand.cancel, { workspace: ws.workspace });
        if (!r.cancelled) {
          void vscode.window.showInformationMessage(`No run is going in ${ws.name}.`);
        }
      }
    },
    'icm.pipeline.openContract': async (arg) => {
      const ref = await pickStage(arg, 'Open the contract of');
      if (ref) {
        await vscode.window.showTextDocument(vscode.Uri.file(ref.stage.contract));
      }
    },
    'icm.pipeline.refresh': () => server.refresh(),
    'icm.runs.refresh': () => runs.refresh(),
    'icm.checkModelServer': async () => {
      const ws = await pickWorkspace();
      if (ws === undefined) {
        return;
      }
      const r = await server.execute<ModelStatus>(ServerCommand.modelStatus, { workspace: ws.workspace });
      const text = modelStatusText(r);
      if (!r.reachable && r.problem !== undefined) {
        // The words and buttons of a run the server refused.
        await review.showProblem(r.problem.message, r.problem.data, ws.workspace);
        return;
      }
      if (!r.reachable) {
        const choice = await vscode.window.showErrorMessage(text, 'Set the model server');
        if (choice !== undefined) {
          await vscode.commands.executeCommand('workbench.action.openSettings', 'icm.ollama.host');
        }
        return;
      }
      if (!r.installed) {
        const pull = `Pull ${r.model}`;
        const choice = await vscode.window.showWarningMessage(text, pull);
        if (choice === pull) {
          await review.pull(undefined, r.model, ws.workspace);
        }
        return;
      }
      void vscode.window.showInformationMessage(text);
    },
    'icm.pipeline.doctor': async () => {
      const ws = await pickWorkspace();
      if (ws === undefined) {
        return;
      }
      const d = await server.execute<DoctorResult>(ServerCommand.doctor, { workspace: ws.workspace });
      log.info(`doctor ${ws.workspace}: ${d.lines.map((l) => `${l.status} ${l.id}: ${l.text}`).join(' | ')}`);
      const picked = await vscode.window.showQuickPick(doctorItems(d), { title: doctorTitle(d), matchOnDescription: true });
      if (picked?.fix !== undefined) {
        await review.performFix(picked.fix, ws.workspace);
      }
    },
    'icm.pipeline.setup': async () => {
      const ws = await pickWorkspace();
      if (ws === undefined) {
        return;
      }
      const plan = await server.execute<SetupPlan>(ServerCommand.setupPlan, { workspace: ws.workspace });
      if (plan.asks.length === 0) {
        void vscode.window.showInformationMessage(
          plan.questionnaire
            ? 'Nothing to set up: every setup-time variable the workspace uses has a value.'
            : 'Nothing to set up: this workspace has no setup questionnaire and no setup-time variable without a value.',
        );
        return;
      }
      const given: (string | undefined)[] = [];
      for (const [i, a] of plan.asks.entries()) {
        const p = setupPrompt(a, i + 1, plan.asks.length);
        const answer =
          p.options !== undefined
            ? (await vscode.window.showQuickPick(p.options, { title: p.title, placeHolder: p.prompt }))
            : await vscode.window.showInputBox({ title: p.title, prompt: p.prompt, value: p.value, ignoreFocusOut: true });
        if (answer === undefined) {
          break; // Escape: save what was answered so far
        }
        given.push(answer);
      }
      const vars = setupAnswers(plan.asks, given);
      const saved = Object.keys(vars).length;
      if (saved > 0) {
        await server.execute(ServerCommand.setupSave, { workspace: ws.workspace, vars });
      }
      setupChanged?.();
      void vscode.window.showInformationMessage(setupDone(given.filter((g) => (g ?? '').trim() !== '').length, plan.asks.length));
    },
    'icm.pipeline.pullModel': async () => {
      const ws = await pickWorkspace();
      if (ws) {
        await review.pull(undefined, undefined, ws.workspace);
      }
    },
    'icm.runs.openCall': async (arg) => {
      const a = arg as { uri?: string } | undefined;
      if (a?.uri !== undefined) {
        await vscode.window.showTextDocument(vscode.Uri.parse(a.uri), { preview: true });
      }
    },
    'icm.showRun': async (arg) => {
      const a = arg as { workspace?: string; runId?: string } | undefined;
      if (a?.workspace !== undefined && a.runId !== undefined) {
        await runs.reveal(a.workspace, a.runId);
      }
    },
    'icm.output.compare': async (arg) => {
      const a = (arg ?? {}) as { workspace?: string; stage?: string; path?: string; proposal?: boolean };
      let target = a;
      if (a.workspace === undefined) {
        const ref = await pickStage(arg, 'Compare with the model\'s version, the output of', (st) => (st.lastRun ?? '') !== '', 'no stage has run yet');
        if (ref === undefined) {
          return;
        }
        target = { workspace: ref.ws.workspace, stage: ref.stage.name };
      }
      await review.compareWithModel(target.workspace as string, target.stage, target.path, target.proposal === true);
    },
    'icm.output.rerunItem': async (arg) => {
      let a = (arg ?? {}) as { workspace?: string; stage?: string; item?: number; title?: string };
      if (a.workspace === undefined || a.stage === undefined || a.item === undefined) {
        // From the palette: the item the cursor is in, as the server
        // places the items in the buffer.
        const editor = vscode.window.activeTextEditor;
        if (editor === undefined) {
          void vscode.window.showInformationMessage('Open the output of a For each stage and put the cursor in the item to run again.');
          return;
        }
        a = await server.execute<ItemRef>(ServerCommand.itemAt, { uri: editor.document.uri.toString(), line: editor.selection.active.line });
      }
      await review.rerunItem(a.workspace as string, a.stage as string, a.item as number, a.title ?? `item ${a.item}`);
    },
    [lensMenuCommand]: async (arg) => {
      const menu = arg as LensMenu | undefined;
      const items = menuItems(menu);
      if (items.length === 0) {
        return;
      }
      const picked = await vscode.window.showQuickPick(items, { title: menu?.title, placeHolder: 'What to do' });
      if (picked !== undefined) {
        await vscode.commands.executeCommand(picked.action.command, ...(picked.action.arguments ?? []));
      }
    },
    'icm.restartServer': () => server.restart(),
    'icm.showLogs': async () => log.show(),
  };

  return vscode.Disposable.from(
    ...Object.entries(commands).map(([id, run]) =>
      vscode.commands.registerCommand(id, async (arg?: unknown) => {
        try {
          return await run(arg);
        } catch (err) {
          log.error(`${id}: ${messageOf(err)}`);
          const node = arg as PipelineNode | undefined;
          const list = model.workspaces();
          const workspace = node?.workspace ?? workspaceOf(list, activeFile())?.workspace ?? (list.length === 1 ? list[0].workspace : undefined);
          void review.showError(err, workspace);
          return undefined;
        }
      }),
    ),
  );
}
