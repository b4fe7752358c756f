// The stage tests in VS Code's Test Explorer: each workspace's cases under
// their stage, one run profile per model (and one for every model), a
// debug profile that keeps each job's copy of the workspace, results as
// they arrive, and failures with their expectation, output and a diff
// against the last passing output. The server does the work.
import * as vscode from 'vscode';
import { plural } from './format';
import type { IcmServer } from './server';
import { messageOf } from './review';
import {
  TestCommand,
  TestNotification,
  type JobResult,
  type TestEvent,
  type TestFinished,
  type TestListResult,
  type TestRunStarted,
  type WorkspaceCases,
} from './testProtocol';
import { byStage, caseItemId, describeRuns, failureMessages, jobLine, listsTests, parseItemId, stageItemId } from './testResults';
import type { CaseInfo } from './testProtocol';

/** A run the server is doing for a TestRun, by its token. */
interface Pending {
  run: vscode.TestRun;
  workspace: string;
  items: Map<string, vscode.TestItem>;
  cases: Map<string, CaseInfo>;
  multiple: boolean;
  done: () => void;
}

export class TestExplorer implements vscode.Disposable {
  private readonly ctrl = vscode.tests.createTestController('icm-stage-tests', 'ICM stage tests');
  private readonly disposables: vscode.Disposable[] = [this.ctrl];
  private profiles: vscode.TestRunProfile[] = [];
  private profileModels = '';
  private readonly pending = new Map<string, Pending>();
  private cases = new Map<string, CaseInfo>();
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly server: IcmServer,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.ctrl.resolveHandler = async (item) => {
      if (item === undefined) {
        await this.refresh();
      }
    };
    this.ctrl.refreshHandler = () => this.refresh();
    const watcher = vscode.workspace.createFileSystemWatcher('**/tests/**/*.md');
    // config.toml's [test] models make the per-model profiles: they follow
    // the file as it changes, on disk and in the editor (the server reads
    // open buffers), not only after a reload.
    const config = vscode.workspace.createFileSystemWatcher('**/config.toml');
    this.disposables.push(
      watcher,
      config,
      watcher.onDidCreate(() => this.refreshSoon()),
      watcher.onDidDelete(() => this.refreshSoon()),
      watcher.onDidChange(() => this.refreshSoon()),
      config.onDidCreate(() => this.refreshSoon()),
      config.onDidDelete(() => this.refreshSoon()),
      config.onDidChange(() => this.refreshSoon()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && listsTests(e.document.uri.path)) {
          this.refreshSoon();
        }
      }),
      server.onNotification(TestNotification.event, (ev: TestEvent) => this.event(ev)),
      server.onNotification(TestNotification.finished, (f: TestFinished) => this.finished(f)),
    );
  }

  /** Asks again after a burst of file changes settles. */
  refreshSoon(): void {
    if (this.refreshTimer !== undefined) {
      clearTimeout(this.refreshTimer);
    }
    this.refreshTimer = setTimeout(() => void this.refresh(), 500);
  }

  /** Lists the cases again and rebuilds the tree and the profiles. */
  async refresh(): Promise<void> {
    let list: TestListResult;
    try {
      list = await this.server.execute<TestListResult>(TestCommand.list, {});
    } catch (err) {
      this.log.warn(`icm.testList: ${messageOf(err)}`);
      return;
    }
    const roots: vscode.TestItem[] = [];
    const cases = new Map<string, CaseInfo>();
    const models = new Set<string>();
    const several = list.workspaces.length > 1;
    for (const ws of list.workspaces) {
      ws.models.forEach((m) => models.add(m));
      const stages = this.stageItems(ws, cases);
      if (!several) {
        roots.push(...stages);
        continue;
      }
      const root = this.ctrl.createTestItem(ws.workspace, ws.name, vscode.Uri.file(ws.workspace));
      stages.forEach((s) => root.children.add(s));
      roots.push(root);
    }
    this.cases = cases;
    this.ctrl.items.replace(roots);
    this.updateProfiles([...models]);
  }

  private stageItems(ws: WorkspaceCases, cases: Map<string, CaseInfo>): vscode.TestItem[] {
    return byStage(ws).map((g) => {
      const first = g.cases[0];
      const contract = vscode.Uri.file(first.file.replace(/\/tests\/.*$/, '/CONTEXT.md'));
      const stage = this.ctrl.createTestItem(stageItemId(ws.workspace, g.stage), g.stage, contract);
      stage.range = new vscode.Range(0, 0, 0, 0);
      for (const c of g.cases) {
        const id = caseItemId(ws.workspace, c.id);
        const item = this.ctrl.createTestItem(id, c.name, vscode.Uri.file(c.file));
        item.range = new vscode.Range(c.line, 0, c.line, 0);
        item.description = c.title;
        if (c.errors !== undefined && c.errors.length > 0) {
          item.error = new vscode.MarkdownString(`The case has errors (the Problems panel lists them): ${c.errors[0]}`);
        }
        cases.set(id, c);
        stage.children.add(item);
      }
      return stage;
    });
  }

  /** One Run profile per model, one for every model, and a Debug profile that keeps the copies. */
  private updateProfiles(models: string[]): void {
    const key = models.join('\n');
    if (key === this.profileModels && this.profiles.length > 0) {
      return;
    }
    this.profileModels = key;
    this.profiles.forEach((p) => p.dispose());
    this.profiles = [];
    const add = (label: string, kind: vscode.TestRunProfileKind, run: { models?: string[]; keep?: boolean }, isDefault: boolean) => {
      this.profiles.push(
        this.ctrl.createRunProfile(label, kind, (req, token) => this.run(req, token, run), isDefault),
      );
    };
    if (models.length > 1) {
      add(`All models (${models.join(', ')})`, vscode.TestRunProfileKind.Run, { models }, true);
    }
    models.forEach((m, i) => add(`Model ${m}`, vscode.TestRunProfileKind.Run, { models: [m] }, models.length === 1 && i === 0));
    if (models.length === 0) {
      add('The configured model', vscode.TestRunProfileKind.Run, {}, true);
    }
    add('Keep each copy of the workspace', vscode.TestRunProfileKind.Debug, { models: models.slice(0, 1), keep: true }, true);
  }

  /** Runs a stage's cases from the `▶ Test (N cases)` lens, in the explorer. */
  async runStage(workspace: string, stage: string): Promise<void> {
    if (this.cases.size === 0) {
      await this.refresh();
    }
    const item = this.findItem(stageItemId(workspace, stage));
    if (item === undefined) {
      throw new Error(`${stage} has no test cases the explorer knows; save the case files and try again`);
    }
    const profile = this.profiles.find((p) => p.isDefault && p.kind === vscode.TestRunProfileKind.Run) ?? this.profiles[0];
    const cts = new vscode.CancellationTokenSource();
    await vscode.commands.executeCommand('workbench.view.testing.focus');
    await profile.runHandler(new vscode.TestRunRequest([item], undefined, profile), cts.token);
  }

  private findItem(id: string): vscode.TestItem | undefined {
    const walk = (items: vscode.TestItemCollection): vscode.TestItem | undefined => {
      let found: vscode.TestItem | undefined;
      items.forEach((it) => {
        found ??= it.id === id ? it : walk(it.children);
      });
      return found;
    };
    return walk(this.ctrl.items);
  }

  /** The case items a request covers, by workspace. */
  private collect(req: vscode.TestRunRequest): Map<string, vscode.TestItem[]> {
    const excluded = new Set((req.exclude ?? []).map((i) => i.id));
    const out = new Map<string, vscode.TestItem[]>();
    const visit = (item: vscode.TestItem) => {
      if (excluded.has(item.id)) {
        return;
      }
      if (this.cases.has(item.id)) {
        const ws = parseItemId(item.id).workspace;
        out.set(ws, [...(out.get(ws) ?? []), item]);
        return;
      }
      item.children.forEach(visit);
    };
    if (req.include !== undefined) {
      req.include.forEach(visit);
    } else {
      this.ctrl.items.forEach(visit);
    }
    return out;
  }

  private async run(req: vscode.TestRunRequest, token: vscode.CancellationToken, opts: { models?: string[]; keep?: boolean }): Promise<void> {
    const run = this.ctrl.createTestRun(req);
    const groups = this.collect(req);
    const waits: Promise<void>[] = [];
    for (const [workspace, items] of groups) {
      const byCase = new Map<string, vscode.TestItem>();
      const infos = new Map<string, CaseInfo>();
      for (const it of items) {
        const info = this.cases.get(it.id);
        if (info !== undefined) {
          byCase.set(info.id, it);
          infos.set(info.id, info);
          run.enqueued(it);
        }
      }
      const key = `icm-test-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      waits.push(
        new Promise<void>((resolve) => {
          this.pending.set(key, { run, workspace, items: byCase, cases: infos, multiple: (opts.models?.length ?? 1) > 1, done: resolve });
          const args = { workspace, cases: [...byCase.keys()], models: opts.models, keep: opts.keep, token: key };
          this.server.execute<TestRunStarted>(TestCommand.run, args).then(
            (started) => run.appendOutput(`${plural(started.cases, 'case')} started in ${workspace}\r\n`),
            (err) => {
              for (const it of byCase.values()) {
                run.errored(it, new vscode.TestMessage(messageOf(err)));
              }
              this.pending.delete(key);
              resolve();
            },
          );
          token.onCancellationRequested(() => void this.server.execute(TestCommand.cancel, { token: key }).catch(() => undefined));
        }),
      );
    }
    await Promise.all(waits);
    run.end();
  }

  private event(ev: TestEvent): void {
    const p = this.pending.get(ev.token);
    const item = p?.items.get(ev.case);
    if (p === undefined || item === undefined) {
      return;
    }
    if (ev.kind === 'job-start') {
      p.run.started(item);
      return;
    }
    if (ev.result !== undefined) {
      p.run.appendOutput(`${jobLine(ev).replace(/\n/g, '\r\n')}\r\n`, undefined, item);
    }
  }

  private finished(f: TestFinished): void {
    const p = this.pending.get(f.token);
    if (p === undefined) {
      return;
    }
    this.pending.delete(f.token);
    if (f.error !== undefined) {
      const text = f.error.hint ? `${f.message}\n\n${f.error.hint}` : f.message;
      for (const it of p.items.values()) {
        p.run.errored(it, new vscode.TestMessage(text));
      }
      p.done();
      return;
    }
    for (const [id, item] of p.items) {
      const results = f.results.filter((r) => r.case === id);
      const info = p.cases.get(id);
      if (results.length === 0 || info === undefined) {
        p.run.skipped(item);
        continue;
      }
      item.description = `${info.title} · ${describeRuns(results)}`;
      this.report(p, item, info, results);
    }
    if (f.saved) {
      p.run.appendOutput(`${f.message}; the report is ${f.saved}\r\n`);
    }
    p.done();
  }

  // No duration is given to VS Code: it would write its own ("4.7s")
  // beside the item's description, which says it as icm does ("4.7 s").
  private report(p: Pending, item: vscode.TestItem, info: CaseInfo, results: JobResult[]): void {
    const bad = results.filter((r) => r.status !== 'passed');
    if (bad.length === 0) {
      p.run.passed(item);
      return;
    }
    const messages = bad.flatMap((r) =>
      failureMessages(r, info, p.multiple || results.length > 1).map((m) => {
        const text = new vscode.MarkdownString(m.text);
        const msg = m.expected !== undefined && m.actual !== undefined ? vscode.TestMessage.diff(text, m.expected, m.actual) : new vscode.TestMessage(text);
        msg.location = new vscode.Location(vscode.Uri.file(m.file), new vscode.Position(m.line, 0));
        return msg;
      }),
    );
    if (bad.every((r) => r.status === 'error' || r.status === 'cancelled')) {
      p.run.errored(item, messages);
    } else {
      p.run.failed(item, messages);
    }
  }

  dispose(): void {
    if (this.refreshTimer !== undefined) {
      clearTimeout(this.refreshTimer);
    }
    this.profiles.forEach((p) => p.dispose());
    this.disposables.forEach((d) => d.dispose());
  }
}
