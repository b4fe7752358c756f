// The icm language server's own messages, as docs/lsp-protocol.md defines
// them. This file only describes shapes; it imports nothing from VS Code so
// the logic built on it can be tested in plain Node.

/** Commands the server runs through workspace/executeCommand. */
export const ServerCommand = {
  status: 'icm.status',
  runNext: 'icm.runNext',
  runStage: 'icm.runStage',
  runAll: 'icm.runAll',
  cancel: 'icm.cancel',
  approveStage: 'icm.approveStage',
  probe: 'icm.probe',
  outputs: 'icm.outputs',
} as const;

/** Notifications the server sends. */
export const ServerNotification = {
  statusChanged: 'icm/statusChanged',
  runFinished: 'icm/runFinished',
} as const;

/** A stage's state; "running" only while a run of it is going. */
export type StageState =
  | 'pending'
  | 'running'
  | 'awaiting-review'
  | 'approved'
  | 'stale'
  | 'failed'
  | 'invalid';

export interface StageStatus {
  name: string;
  status: StageState;
  reason?: string;
  /** Absolute path of the stage's CONTEXT.md. */
  contract: string;
  /** Absolute paths of the outputs the contract declares. */
  outputs?: string[];
  /** Estimated tokens of the assembled context. */
  tokens?: number;
  /** For each item count, -1 when the stage has no For each. */
  items?: number;
  /** RFC 3339 time of the last run, absent when it never ran. */
  lastRun?: string;
  verifyFailed?: boolean;
}

export interface RunningStatus {
  stage: string;
  runId: string;
  item?: number;
  items?: number;
}

export interface NextStep {
  stage?: string;
  /** run, approve, fix or done. */
  action: string;
  message: string;
}

export interface WorkspaceStatus {
  /** Absolute path of the workspace root. */
  workspace: string;
  name: string;
  running?: RunningStatus | null;
  next?: NextStep;
  stages: StageStatus[];
}

export interface StatusResult {
  workspaces: WorkspaceStatus[];
}

export interface RunStarted {
  started: boolean;
  runId?: string;
}

export interface RunFinished {
  workspace: string;
  stage: string;
  runId: string;
  ok: boolean;
  cancelled: boolean;
  message?: string;
  outputs?: string[];
  verifyFailed?: boolean;
  /** Why the run failed, with the fixes to offer. */
  error?: ErrorData;
}

export interface ProbeResult {
  uri: string;
  title: string;
  content: string;
}

export interface OutputsResult {
  outputs: { path: string; exists: boolean }[];
  previous: { path: string; runId: string; time: string }[];
}

/** What the extension sends as initializationOptions and configuration. */
export interface ServerSettings {
  ollamaHost?: string;
  model?: string;
  gate?: string;
}

/** An LSP location: a file and a range in it (0-based lines). */
export interface Location {
  uri: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

/** One fix an error offers (docs/lsp-protocol.md); the fields set depend on the id. */
export interface ErrorAction {
  id: string;
  title: string;
  stage?: string;
  location?: Location;
  model?: string;
  url?: string;
  command?: string;
  /** The server setting choose-model and set-server change: "model" or "ollamaHost". */
  setting?: string;
}

/** The data of the server's error replies, and the error of a failed run. */
export interface ErrorData {
  kind: string;
  stage?: string;
  hint?: string;
  location?: Location;
  actions: ErrorAction[];
}
