import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { byStage, caseItemId, describeRuns, escapeMarkdown, failureMessages, jobLine, listsTests, parseItemId, stageItemId, testMarks } from '../../src/testResults';
import type { CaseInfo, JobResult, WorkspaceCases } from '../../src/testProtocol';

const info: CaseInfo = {
  id: '01-scope/go-cli',
  stage: '01-scope',
  name: 'go-cli',
  title: 'a narrow idea',
  file: '/w/pipeline/01-scope/tests/go-cli.md',
  line: 0,
  expect: ['contains "Go"', 'rubric >= 7: verbs'],
};

function job(over: Partial<JobResult> = {}): JobResult {
  return {
    case: info.id,
    stage: '01-scope',
    model: 'qwen3.5:9b',
    repeat: 1,
    seed: 1,
    status: 'failed',
    checks: [
      { expect: 'contains "Go"', kind: 'contains', source: 'case', ok: false, message: 'output.md does not contain "Go"', line: 14 },
      { expect: 'rubric >= 7: verbs', kind: 'rubric', source: 'case', ok: false, message: 'scored 5, below 7: two nouns', line: 15, score: 5, threshold: 7 },
      { expect: 'verify non-empty', kind: 'non-empty', source: 'stage', ok: true },
      { expect: 'verify max-words 5', kind: 'max-words', source: 'stage', ok: false, message: '40 words', info: true },
    ],
    output: 'pipeline/01-scope/output/objectives.md',
    output_text: '1. Write programs.\n',
    duration: 2_400_000_000,
    prompt_tokens: 800,
    output_tokens: 40,
    ...over,
  };
}

test('item ids name the workspace and the case or stage, and parse back', () => {
  assert.equal(caseItemId('/w', '01-scope/go-cli'), '/w::01-scope/go-cli');
  assert.deepEqual(parseItemId(caseItemId('/a::b', '01-scope/go-cli')), { workspace: '/a::b', name: '01-scope/go-cli' });
  assert.deepEqual(parseItemId(stageItemId('/w', '01-scope')), { workspace: '/w', name: '01-scope' });
});

test('cases are grouped under their stage in folder order', () => {
  const ws: WorkspaceCases = {
    workspace: '/w',
    name: 'w',
    models: ['m'],
    cases: [info, { ...info, id: '01-scope/b', name: 'b' }, { ...info, id: '02-research/c', stage: '02-research', name: 'c' }],
  };
  assert.deepEqual(
    byStage(ws).map((g) => [g.stage, g.cases.map((c) => c.name)]),
    [
      ['01-scope', ['go-cli', 'b']],
      ['02-research', ['c']],
    ],
  );
});

test('a failure gives one message per failing expectation, at its line, info checks left out', () => {
  const ms = failureMessages(job(), info, false);
  assert.equal(ms.length, 2);
  assert.equal(ms[0].line, 13);
  assert.match(ms[0].text, /^✗ contains "Go"\n\noutput\\\.md does not contain "Go"/);
  assert.match(ms[0].text, /The output \(pipeline\/01-scope\/output\/objectives\.md\):\n\n```\n1\. Write programs\.\n```/);
  assert.equal(ms[0].expected, undefined);
  assert.match(ms[1].text, /Score 5 of 10, 7 needed\./);
  assert.equal(ms[1].line, 14);
});

test('with a previous passing output the first message carries the diff', () => {
  const ms = failureMessages(job({ previous: { run_id: 'r1', text: '1. Write Go programs.\n' } }), info, true);
  assert.equal(ms[0].expected, '1. Write Go programs.\n');
  assert.equal(ms[0].actual, '1. Write programs.\n');
  assert.match(ms[0].text, /^\[qwen3\.5:9b #1\] ✗ contains "Go"/);
  assert.match(ms[0].text, /last one that passed \(run r1\)/);
});

test('a job that could not run says why and what to do, at the title', () => {
  const ms = failureMessages(job({ status: 'error', checks: [], error: 'no model server answers', hint: 'start Ollama' }), info, false);
  assert.deepEqual(ms, [{ text: 'could not run: no model server answers\n\nstart Ollama', file: info.file, line: 0 }]);
});

test('what a message quotes keeps its characters when the Markdown is rendered', () => {
  const expect = 'matches `(?m)^4\\. `';
  const ms = failureMessages(
    job({ checks: [{ expect, kind: 'matches', source: 'case', ok: false, message: 'nothing matches (?m)^4\\.', line: 3 }] }),
    info,
    false,
  );
  const first = ms[0].text.split('\n\n');
  assert.equal(first[0], '✗ matches \\`\\(?m\\)^4\\\\\\. \\`');
  assert.equal(first[1], 'nothing matches \\(?m\\)^4\\\\\\.');
  assert.equal(escapeMarkdown('a_b*c'), 'a\\_b\\*c');
});

test('an output holding a fence gets a longer one', () => {
  const ms = failureMessages(job({ output_text: 'x\n```sh\nls\n```\n' }), info, false);
  assert.match(ms[0].text, /````\nx\n```sh\nls\n```\n````/);
});

test('runs are summed up per model, with their time in the vocabulary\'s words', () => {
  // VS Code writes a duration it is given as "7.2s"; the item says it
  // as icm does ("7.2 s"), and VS Code is given none.
  const rs = [job({ status: 'passed' }), job({ repeat: 2 }), job({ model: 'llama', status: 'passed' })];
  assert.equal(describeRuns(rs), '2/3 passed · 7.2 s · qwen3.5:9b 1/2, llama 1/1');
});

/** The vocabulary's test job outcomes (docs/vocabulary.md). */
const vocabulary = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../server/internal/human/testdata/table.json'), 'utf8')) as {
  test: { status: string; mark: string }[];
};

test('a finished job reads as icm test prints it', () => {
  assert.equal(vocabulary.test.length, Object.keys(testMarks).length);
  for (const t of vocabulary.test) {
    assert.equal(testMarks[t.status as JobResult['status']], t.mark, t.status);
  }
  const ev = { token: 't', kind: 'job-end' as const, index: 3, total: 12, case: info.id, model: 'qwen3.5:9b', repeat: 1 };
  assert.equal(jobLine({ ...ev, result: job({ status: 'passed' }) }), '✓ [3/12] 01-scope/go-cli × qwen3.5:9b #1  2.4 s');
  assert.equal(
    jobLine({ ...ev, result: job({ first_failure: 'contains "Go": output.md does not contain "Go"', copy: '/tmp/job-3' }) }),
    '✗ [3/12] 01-scope/go-cli × qwen3.5:9b #1  2.4 s\n    contains "Go": output.md does not contain "Go"\n    copy kept at /tmp/job-3',
  );
  assert.equal(
    jobLine({ ...ev, result: job({ status: 'error', error: 'no model server at http://127.0.0.1:11434', hint: 'start Ollama' }) }),
    '! [3/12] 01-scope/go-cli × qwen3.5:9b #1  2.4 s\n    no model server at http://127.0.0.1:11434\n    hint: start Ollama',
  );
});

test('listsTests: the files whose change the Test Explorer follows', () => {
  assert.equal(listsTests('/w/course-research/config.toml'), true, 'config.toml: its [test] models are the profiles');
  assert.equal(listsTests('/w/course-research/pipeline/01-scope/tests/go-cli.md'), true);
  assert.equal(listsTests('/w/course-research/pipeline/01-scope/CONTEXT.md'), false);
  assert.equal(listsTests('/w/course-research/my-config.toml.bak'), false);
});
