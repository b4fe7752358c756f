// Shows the server's cancellable work-done progress (a stage run) as a
// notification with a Cancel button; the language client's built-in feature
// only puts progress in the status bar, where it cannot be cancelled.
import * as vscode from 'vscode';
import {
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  type BaseLanguageClient,
  type ClientCapabilities,
  type FeatureState,
  type ProgressToken,
  type StaticFeature,
  type WorkDoneProgressBegin,
  type WorkDoneProgressReport,
} from 'vscode-languageclient';
import { PercentTracker } from './progress';

/**
 * Answers window/workDoneProgress/create. The client initializes features in
 * the order they were registered, so this handler, registered after the
 * built-in one, is the one in force.
 */
export class RunProgressFeature implements StaticFeature {
  private readonly parts = new Set<ProgressPart>();

  constructor(private readonly client: BaseLanguageClient) {}

  getState(): FeatureState {
    return { kind: 'static' };
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.window = capabilities.window ?? {};
    capabilities.window.workDoneProgress = true;
  }

  initialize(): void {
    this.client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      const part: ProgressPart = new ProgressPart(this.client, token, () => this.parts.delete(part));
      this.parts.add(part);
    });
  }

  clear(): void {
    for (const part of this.parts) {
      part.done();
    }
    this.parts.clear();
  }
}

type Reporter = vscode.Progress<{ message?: string; increment?: number }>;

/** One server progress token, from begin to end. */
class ProgressPart {
  private readonly percent = new PercentTracker();
  private readonly subscription: vscode.Disposable;
  private reporter: Reporter | undefined;
  private pending: WorkDoneProgressReport | undefined;
  private finish: (() => void) | undefined;
  private finished = false;

  constructor(
    private readonly client: BaseLanguageClient,
    private readonly token: ProgressToken,
    private readonly onDone: () => void,
  ) {
    this.subscription = client.onProgress(WorkDoneProgress.type, token, (value) => {
      switch (value.kind) {
        case 'begin':
          this.begin(value);
          break;
        case 'report':
          this.report(value);
          break;
        case 'end':
          this.done();
          break;
      }
    });
  }

  private begin(value: WorkDoneProgressBegin): void {
    const cancellable = value.cancellable === true;
    this.pending = { kind: 'report', message: value.message, percentage: value.percentage };
    void vscode.window.withProgress(
      {
        location: cancellable ? vscode.ProgressLocation.Notification : vscode.ProgressLocation.Window,
        title: value.title,
        cancellable,
      },
      (progress, cancel) => {
        this.reporter = progress;
        cancel.onCancellationRequested(() => {
          void this.client.sendNotification(WorkDoneProgressCancelNotification.type, { token: this.token });
        });
        if (this.pending !== undefined) {
          this.report(this.pending);
        }
        return new Promise<void>((resolve) => {
          this.finish = resolve;
          if (this.finished) {
            resolve();
          }
        });
      },
    );
  }

  private report(value: WorkDoneProgressReport): void {
    if (this.reporter === undefined) {
      // withProgress has not called back yet: keep the newest report for it.
      this.pending = value;
      return;
    }
    this.pending = undefined;
    this.reporter.report({ message: value.message, increment: this.percent.increment(value.percentage) });
  }

  done(): void {
    if (this.finished) {
      return;
    }
    this.finished = true;
    this.subscription.dispose();
    this.finish?.();
    this.onDone();
  }
}
