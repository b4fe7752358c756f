import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { buttonLabel, errorNotice } from '../../src/errors';
import { demoCommand, findOnPath, MissingButton, startPlan } from '../../src/ollama';

test('findOnPath looks in each PATH folder, and for Windows names too', () => {
  const files = new Set(['/opt/ollama/bin/ollama', 'C:\\Tools\\ollama.EXE']);
  const isExec = (f: string) => files.has(f);
  assert.equal(findOnPath('ollama', '/usr/bin::/opt/ollama/bin', isExec, 'linux'), '/opt/ollama/bin/ollama');
  assert.equal(findOnPath('ollama', '/usr/bin:/bin', isExec, 'linux'), undefined);
  assert.equal(findOnPath('ollama', undefined, isExec, 'linux'), undefined);
  assert.equal(findOnPath('ollama', 'C:\\Windows;C:\\Tools', isExec, 'win32', '.COM;.EXE'), 'C:\\Tools\\ollama.EXE');
});

// "Start Ollama" used to start a terminal that said "ollama: command not
// found" while the notice said it had started: now the program is looked
// for first, and when it is missing the notice says how to install it
// and offers the demo.
test('startPlan starts the command only when its program is here', () => {
  assert.deepEqual(startPlan('ollama serve', () => true), { kind: 'start', command: 'ollama serve' });
  const missing = startPlan('ollama serve', () => false);
  assert.equal(missing.kind, 'missing');
  if (missing.kind !== 'missing') {
    return;
  }
  assert.match(missing.text, /Ollama is not installed on this machine/);
  assert.match(missing.text, /Install it/);
  assert.match(missing.text, /demo/);
  assert.deepEqual(missing.buttons, [MissingButton.install, MissingButton.demo]);
  const other = startPlan('llama-server -m x.gguf', () => false);
  assert.equal(other.kind, 'missing');
  assert.match(other.kind === 'missing' ? other.text : '', /`llama-server` is not on this machine's PATH/);
  const looked: string[] = [];
  startPlan('  ollama   serve ', (p) => {
    looked.push(p);
    return true;
  });
  assert.deepEqual(looked, ['ollama']);
});

// The server's Start Ollama sets what For each items need to share their
// computed prompt ("OLLAMA_MULTIUSER_CACHE=1 ollama serve"): the
// variables go into the terminal's environment, the program is looked up
// by its own name.
test('startPlan passes the variables a command sets first as the environment', () => {
  const looked: string[] = [];
  const plan = startPlan('OLLAMA_MULTIUSER_CACHE=1 OLLAMA_NUM_PARALLEL=4 ollama serve', (p) => {
    looked.push(p);
    return true;
  });
  assert.deepEqual(plan, { kind: 'start', command: 'ollama serve', env: { OLLAMA_MULTIUSER_CACHE: '1', OLLAMA_NUM_PARALLEL: '4' } });
  assert.deepEqual(looked, ['ollama']);
  const missing = startPlan('OLLAMA_MULTIUSER_CACHE=1 ollama serve', () => false);
  assert.equal(missing.kind === 'missing' ? missing.program : '', 'ollama');
});

test('the server says Ollama is missing: Install Ollama and Try the Demo are buttons', () => {
  const data = {
    kind: 'model-unreachable',
    hint: 'install Ollama, start it and pull the model; or try the pipeline first without a model, with the demo\'s canned answers',
    actions: [
      { id: 'install-server', title: 'Install Ollama', url: 'https://ollama.com/download', model: 'qwen3.5:9b' },
      { id: 'try-demo', title: 'Try the demo', command: 'icm demo' },
      { id: 'set-server', title: 'Set the model server', url: 'http://127.0.0.1:11434', setting: 'ollamaHost' },
    ],
  };
  const n = errorNotice('no model server at http://127.0.0.1:11434, and Ollama is not installed on this machine', data);
  assert.deepEqual(n.buttons.map((b) => b.label), ['Install Ollama', 'Try the Demo', 'Set Server Address']);
  assert.equal(buttonLabel({ id: 'install-server', title: '' }), undefined, 'install-server needs its url');
});

test('demoCommand runs the demo with the icm the extension uses', () => {
  assert.equal(demoCommand(undefined), 'icm demo');
  assert.equal(demoCommand('/home/me/.vscode/ext/bin/icm'), '/home/me/.vscode/ext/bin/icm demo');
  assert.equal(demoCommand("/it's here/icm"), `'/it'\\''s here/icm' demo`);
});
