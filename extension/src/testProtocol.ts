// The shapes of the stage-test messages of the icm language server
// (docs/lsp-protocol.md, "Stage tests"). Shapes only: nothing here imports
// VS Code, so the logic built on them is tested in plain Node.

/** Commands the server runs through workspace/executeCommand. */
export const TestCommand = {
  list: 'icm.testList',
  run: 'icm.testRun',
  cancel: 'icm.testCancel',
} as const;

/** The notifications of a test run: each job's start and end, then the run's end. */
export const TestNotification = {
  event: 'icm/testEvent',
  finished: 'icm/testFinished',
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
  /** The job's copy of the workspace, when the run kept it (the debug profile). */
  copy?: string;
  prompt_tokens: number;
  output_tokens: number;
}

export interface TestRunArgs {
  workspace: string;
  /** Case ids; none means every case (of stage, when given). */
  cases?: string[];
  stage?: string;
  models?: string[];
  repeat?: number;
  /** Ties the notifications to this run. */
  token?: string;
  /** Keep each job's copy of the workspace. */
  keep?: boolean;
}

/** What icm.testRun answers: the run started. */
export interface TestRunStarted {
  started: boolean;
  token: string;
  cases: number;
}

/** The params of icm/testFinished. */
export interface TestFinished {
  token: string;
  workspace: string;
  run_id?: string;
  passed: boolean;
  cancelled: boolean;
  /** Where the report was saved. */
  saved?: string;
  results: JobResult[];
  message: string;
  /** Why the run could not start its jobs, as an error reply's data. */
  error?: { kind: string; hint?: string };
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
