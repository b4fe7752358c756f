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
  runs: 'icm.runs',
  virtualDocument: 'icm.virtualDocument',
  runItem: 'icm.runItem',
  itemAt: 'icm.itemAt',
  compareOutput: 'icm.compareOutput',
  modelStatus: 'icm.modelStatus',
  pullModel: 'icm.pullModel',
  trustList: 'icm.trustList',
  trustGrant: 'icm.trustGrant',
  doctor: 'icm.doctor',
  setupPlan: 'icm.setupPlan',
  setupSave: 'icm.setupSave',
  editConfig: 'icm.editConfig',
} as const;

/** Notifications the extension sends. */
export const ClientNotification = {
  /** The editor's Workspace Trust changed: {trusted}. */
  didChangeWorkspaceTrust: 'icm/didChangeWorkspaceTrust',
} as const;

/** Notifications the server sends. */
export const ServerNotification = {
  statusChanged: 'icm/statusChanged',
  runFinished: 'icm/runFinished',
  virtualDocumentChanged: 'icm/virtualDocumentChanged',
} as const;

/** URI schemes of the read-only documents the server provides. */
export const VirtualScheme = {
  /** A stage's assembled context: icm-context:/WORKSPACE/STAGE.md?item=N */
  context: 'icm-context',
  /** One model call's request and reply: icm-call:/WORKSPACE/RUN/STAGE/ITEM/call-N.md */
  call: 'icm-call',
  /** The model's version of an output: icm-model:/OUTPUT */
  model: 'icm-model',
  /** A change a run proposes to a file outside output/: icm-proposed:/FILE?stage=STAGE */
  proposed: 'icm-proposed',
} as const;

/** One line of a run's tree (the server's report.RunNode, as icm.runs sends it). */
export interface RunNode {
  kind: 'stage' | 'item' | 'model' | 'tool' | 'verify';
  text: string;
  stage: string;
  index?: number;
  call?: number;
  error?: string;
  promptTokens?: number;
  outputTokens?: number;
  durationMs?: number;
  args?: Record<string, unknown>;
  size?: number;
  /** For a model or tool call: the icm-call: document with its request and reply, or its arguments and result. */
  uri?: string;
  /** On a stage: the agent:NAME that handed its outputs in over MCP. */
  agent?: string;
  /** On a stage: the For each item the run did again, and the person's note for it. */
  rerun?: number;
  note?: string;
  /** On a stage whose outputs from this run were approved: who approved and why, in icm history's words. */
  approval?: string;
  children?: RunNode[];
}

/** How a run ended: running and stopped (killed) for one without its end. */
export type RunStatus = 'done' | 'failed' | 'cancelled' | 'refused' | 'running' | 'stopped';

/** One run, newest first in RunsResult. */
export interface RunEntry {
  id: string;
  /** RFC 3339. */
  start: string;
  durationMs: number;
  promptTokens: number;
  outputTokens: number;
  finished: boolean;
  status: RunStatus;
  /** The figures in words: "12 s", "4,504 tokens in / 312 out" (or who handed the outputs in), "2 of 5 tool calls failed". */
  duration: string;
  tokens: string;
  tools?: string;
  /** A run of one For each item again: the item, its stage, the person's note. */
  item?: number;
  itemStage?: string;
  note?: string;
  stages: RunNode[];
}

export interface RunsResult {
  runs: RunEntry[];
  /** Every way a run can end, with what it means. */
  outcomes: { status: RunStatus; means: string }[];
}

export interface VirtualDocumentResult {
  text: string;
}

export interface CompareResult {
  /**
   * The diff's two sides: the model's version (an icm-model: URI) and the
   * file as it is; for a proposed change, the file as it is ("" for a new
   * file) and the change (an icm-proposed: URI).
   */
  model: string;
  current: string;
  title: string;
}

/** A stage's state; "running" only while a run of it is going. */
export type StageState =
  | 'pending'
  | 'running'
  | 'awaiting-review'
  | 'approved'
  | 'stale'
  | 'failed'
  | 'invalid'
  /** A setting it runs with cannot be used; the state it keeps is in StageStatus.kept. */
  | 'config-error';

/**
 * How a stage's state reads, derived once by the server (state.FaceOf) for
 * every face: lens, Pipeline view, status bar, notices and `icm status`.
 */
export interface StageFace {
  status: StageState;
  /** The state in words: "awaiting review", "has errors". */
  label: string;
  /** More when there is more: "last re-run failed: ...". */
  detail?: string;
  /** A codicon id and a theme colour id. */
  icon: string;
  color?: string;
  /** ok, info, warning or error. */
  tone: string;
}

/** What a stage's last finished run used, from its run record. */
export interface LastRunStats {
  runId: string;
  model?: string;
  promptTokens: number;
  outputTokens: number;
  durationMs: number;
  modelCalls: number;
  toolCalls: number;
  toolErrors?: number;
  /** The figures in words, as the contract's hover says them. */
  text: string;
}

export interface StageStatus {
  name: string;
  status: StageState;
  reason?: string;
  /** For a config error: the state kept until the setting is fixed ("approved"). */
  kept?: StageState;
  face: StageFace;
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
  /** The review rubrics' checks in one line: "3 of 4 rubric checks pass: missing section \"Risks\"". */
  rubric?: string;
  rubricFailed?: boolean;
  /** The contract's Review Gate checklist, one item a line. */
  reviewGate?: string[];
  /** The last finished run's real figures. */
  lastRunStats?: LastRunStats;
  /** Model calls the whole stage makes at the least (a For each: one per item). */
  calls?: number;
  /** Tokens of the whole stage's first calls (a For each: every item's). */
  stageTokens?: number;
  /** The context in words, as the lens says it: "~1.2k tokens", "4 calls, ~5.2k tokens". */
  context?: string;
  /** The stages that read this one's outputs, directly or through others. */
  downstream?: string[];
  /** The gate summary of a stage awaiting review, as icm/runFinished has it. */
  gate?: GateLine[];
}

/**
 * One line of a stage's gate summary (report.Gate on the server): the
 * same lines in the notice, the Pipeline view and the output's lens.
 */
export interface GateLine {
  /** The check result: 'warn' or 'fail'. */
  status: 'ok' | 'warn' | 'fail' | 'skip';
  /** The result as a gate line says it: 'WARN', 'FAIL'. */
  word: string;
  /** The line, one sentence. */
  text: string;
  /** Its particulars, one a line ("stages/01-x/CONTEXT.md:4: ..."). */
  items?: string[];
  /** 'run' when the line asks for the stage to run again. */
  action?: string;
}

export interface RunningStatus {
  stage: string;
  runId: string;
  /** The For each item last started (its position in the source). */
  item?: number;
  items?: number;
  /** How many items have finished. */
  done?: number;
  /** How far it has come, short (for a row or the status bar): "2 of 4 items done". */
  count?: string;
  /** The same with what runs now, the running stage's face detail: "2 of 4 items done · running item 3: Setup". */
  text?: string;
}

export interface NextStep {
  stage?: string;
  /**
   * run, approve, fix, trust (the workspace must be trusted first),
   * start-server (the model server does not answer), wait (a run is going)
   * or done.
   */
  action: string;
  message: string;
}

/** Whether icm may act for a workspace: run, contact and read what it names. */
export interface TrustStatus {
  /** not-needed, trusted, untrusted, changed or restricted. */
  state: string;
  allowed: boolean;
  /** The state in one line for a person. */
  summary: string;
}

/** One thing trusting a workspace allows (icm.trustList). */
export interface TrustPart {
  /** command, script, check, test-check, pull, server or key. */
  kind: string;
  /** run, pull, contact or read. */
  verb: string;
  value: string;
  /** Where the workspace names it: "config.toml [mcp.servers.x]". */
  where: string;
  /** For a command: how each program and file it runs is held, a line each. */
  pins?: string[];
}

/** What icm.trustList and icm.trustGrant answer. */
export interface TrustInfo extends TrustStatus {
  workspace: string;
  /** Identifies the list: icm.trustGrant takes it back. */
  hash: string;
  parts: TrustPart[];
  /** The parts a grant no longer covers, with the value it had, or what changed in the files a granted command runs. */
  changes: (TrustPart & { was?: string; files?: string[] })[];
  by?: string;
  note?: string;
}

export interface WorkspaceStatus {
  /** Absolute path of the workspace root. */
  workspace: string;
  name: string;
  running?: RunningStatus | null;
  next?: NextStep;
  stages: StageStatus[];
  trust: TrustStatus;
}

/** One stage state in the legend icm.status sends: its words and icon as every face has them, and what it means. */
export interface StateWords {
  status: StageState;
  label: string;
  icon: string;
  color?: string;
  means: string;
}

export interface StatusResult {
  workspaces: WorkspaceStatus[];
  states: StateWords[];
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
  /** How the run ended, in the Runs view's word for it. */
  outcome: 'done' | 'failed' | 'refused' | 'cancelled';
  message?: string;
  outputs?: string[];
  verifyFailed?: boolean;
  /** Why the run failed, with the fixes to offer. */
  error?: ErrorData;
  /** Set when no stage ran (Run All with nothing to do, a gate, an error first). */
  nothingRan?: boolean;
  /** The stage's tool calls and how many failed, and that in words ("2 of 5 tool calls failed"). */
  toolCalls?: number;
  toolErrors?: number;
  tools?: string;
  /** The run wrote what was there already: an approval stands. */
  sameOutput?: boolean;
  /** The stage's state after the run. */
  face?: StageFace;
  /** The For each item run again, when one was. */
  item?: number;
  /** The first Verify findings, "file:line: message (check)". */
  findings?: string[];
  /** The review rubrics' checks in one line, and whether one failed. */
  rubric?: string;
  rubricFailed?: boolean;
  /** The contract's Review Gate checklist, one item a line. */
  reviewGate?: string[];
  /** The stage's gate summary: outputs missing, changes proposed, headings later stages lack, warnings. */
  gate?: GateLine[];
  /** For a stage that is the person's step: what its contract says to do. */
  manual?: string;
}

/** What icm.itemAt answers: the For each item a line of an output is in. */
export interface ItemRef {
  workspace: string;
  stage: string;
  item: number;
  items: number;
  title: string;
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
  /** The keys above whose value is the workspace's own (workspace or folder scope), not the person's. */
  workspaceScoped?: string[];
}

/** An LSP location: a file and a range in it (0-based lines). */
export interface Location {
  uri: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

/** A standard LSP workspace edit of one document, as icm.editConfig makes it. */
export interface DocumentEdit {
  documentChanges: {
    /** version is the open buffer's the edit was made on; null for the file on disk. */
    textDocument: { uri: string; version: number | null };
    edits: { range: Location['range']; newText: string }[];
  }[];
}

/** What icm.editConfig answers: the edit of config.toml, or why there is none. */
export interface ConfigEdit {
  edit: DocumentEdit | null;
  /** The key's line, 0-based. */
  line?: number;
  reason?: string;
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

/** What icm.modelStatus says about a workspace's model server. */
export interface ModelStatus {
  /** The server's address. */
  url: string;
  reachable: boolean;
  /** The server's version, when it answered. */
  version?: string;
  /** The model the workspace runs (the setting, else config.toml). */
  model: string;
  installed: boolean;
  /** The installed model probably meant, when the model is missing. */
  suggestion?: string;
  models: string[];
  /** What went wrong, in words, when it did. */
  error?: string;
  /** Why the server did not answer, as a failed run tells it: the message, and the error data with the hint and the fixes. */
  problem?: { message: string; data: ErrorData };
}

/** One line of icm.doctor's report. */
export interface DoctorLine {
  id: string;
  title: string;
  /** ok, warn, fail or skip. */
  status: string;
  text: string;
  /** The button that fixes a failing line. */
  fix?: ErrorAction;
}

/** What icm.doctor answers. */
export interface DoctorResult {
  workspace: string;
  lines: DoctorLine[];
  next?: NextStep;
  failed: number;
}

/** One question of icm.setupPlan. */
export interface SetupAsk {
  vars: string[];
  question: string;
  from?: string;
  options?: string[];
  default?: string;
  current?: string;
}

/** What icm.setupPlan answers. */
export interface SetupPlan {
  questionnaire?: string;
  asks: SetupAsk[];
  unmapped?: number;
}
