import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { setupAnswers, setupDone, setupPrompt } from '../../src/setup';
import type { SetupAsk } from '../../src/protocol';

const asks: SetupAsk[] = [
  { vars: ['CLUB'], question: 'What is the club called?', from: 'setup/questionnaire.md Q1' },
  { vars: ['DAY'], question: 'Which day?', options: ['Monday', 'Friday'], default: 'Friday' },
  { vars: ['SHORT', 'SLUG'], question: 'Its short name?', current: 'herons' },
];

test('setupPrompt names the variables and offers the default or the current value', () => {
  assert.deepEqual(setupPrompt(asks[0], 1, 3), {
    title: 'Set up the workspace (1 of 3)',
    prompt: 'What is the club called? — fills {{CLUB}} (setup/questionnaire.md Q1)',
    value: '',
  });
  assert.deepEqual(setupPrompt(asks[1], 2, 3).options, ['Monday', 'Friday']);
  assert.equal(setupPrompt(asks[1], 2, 3).value, 'Friday');
  assert.equal(setupPrompt(asks[2], 3, 3).value, 'herons');
  assert.match(setupPrompt(asks[2], 3, 3).prompt, /\{\{SHORT\}\}, \{\{SLUG\}\}/);
});

test('setupAnswers fills every variable of an answer and leaves empty ones out', () => {
  assert.deepEqual(setupAnswers(asks, ['Herons', '  ', 'hw']), { CLUB: 'Herons', SHORT: 'hw', SLUG: 'hw' });
  assert.deepEqual(setupAnswers(asks, ['Herons']), { CLUB: 'Herons' });
});

test('setupDone says what was saved', () => {
  assert.equal(setupDone(2, 3), 'Saved 2 answers to [vars] in config.toml; 1 left unset.');
  assert.equal(setupDone(0, 3), 'Nothing was saved: every question was left empty.');
});
