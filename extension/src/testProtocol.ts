// The shapes of the stage-test messages of the icm language server
// (docs/lsp-protocol.md, "Stage tests"). Shapes only: nothing here imports
// VS Code, so the logic built on them is tested in plain Node.

/** Commands the server runs through workspace/executeCommand. */
export const TestCommand = {
  list: 'icm.testList',
  run: 'icm.testRun',
  cancel: 'icm.testCancel',
} as const;

/** The notification that reports each job as it starts and ends. */
export const TestNotification = {
  event: 'icm/testEvent',
} as const;

/** One case, as icm.testList lists it. */
export interface CaseInfo {
  /** STAGE/NAME. */
  id: string;
  stage: string;
  name: string;
  title: string;
  /** Absolute path of the case file. */
  file: string;
  /** 0-based line of the case's title. */
  line: number;
  /** The expectations as written. */
  expect: string[];
  /** Error findings: a case with any is reported, never run. */
  errors?: string[];
}

/** A workspace's cases and the models its test profiles offer. */
export interface WorkspaceCases {
  workspace: string;
  name: string;
  /** [test] models, else the configured model: one test profile each. */
  models: string[];
  cases: CaseInfo[];
}

export interface TestListResult {
  workspaces: WorkspaceCases[];
}

/** One expectation's outcome. */
export interface CheckResult {
  expect: string;
  kind: string;
  /** "case" or "stage" (the contract's own Verify checks). */
  source: string;
  ok: boolean;
  message?: string;
  /** 1-based line of the expectation in the case file. */
  line?: number;
  /** Shown, not counted (the stage's checks under a `verify` line). */
  info?: boolean;
  score?: number;
  threshold?: number;
  reason?: string;
}

export type JobStatus = 'passed' | 'failed' | 'error' | 'cancelled';

/** One job: a case with one model and one repeat. */
export interface JobResult {
  case: string;
  stage: string;
  model: string;
  repeat: number;
  seed: number;
  status: JobStatus;
  error?: string;
  hint?: string;
  checks: CheckResult[];
  first_failure?: string;
  /** Workspace-relative path of the output the expectations read. */
  output?: string;
  /** Its text. */
  output_text?: string;
  /** The same case's output the last time it passed on this model. */
  previous?: { run_id: string; text: string };
  /** Nanoseconds. */
  duration: number;
  prompt_tokens: number;
  output_tokens: number;
}

export interface TestRunArgs {
  workspace: string;
  /** Case ids; none means every case. */
  cases?: string[];
  models?: string[];
  repeat?: number;
  /** Ties the icm/testEvent notifications to this run. */
  token: string;
  /** Keep each job's copy of the workspace. */
  keep?: boolean;
}

export interface TestRunResult {
  run_id: string;
  passed: boolean;
  /** Where the report was saved. */
  saved: string;
  results: JobResult[];
}

export interface TestEvent {
  token: string;
  kind: 'job-start' | 'job-end';
  index: number;
  total: number;
  case: string;
  model: string;
  repeat: number;
  result?: JobResult;
}
