import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ServerCommand } from '../../src/protocol';
import { TestCommand } from '../../src/testProtocol';

// The manifest at the repository root, from extension/out/test/unit/.
const manifest = JSON.parse(readFileSync(path.join(__dirname, '../../../../package.json'), 'utf8'));

test('no command of the extension has the id of a server command', () => {
  // The language client registers every command the server executes;
  // one the extension contributes too makes the client fail to start.
  const server = new Set<string>([...Object.values(ServerCommand), ...Object.values(TestCommand)]);
  const clash = (manifest.contributes.commands as { command: string }[]).map((c) => c.command).filter((c) => server.has(c));
  assert.deepEqual(clash, []);
});

test('the extension starts for every stage layout the server reads', () => {
  // Stages under pipeline/, stages/ or another first-level folder
  // (phases/01-a/CONTEXT.md): a workspace of the last kind opened nothing.
  const events = manifest.activationEvents as string[];
  assert.ok(events.includes('workspaceContains:**/*/[0-9]*/CONTEXT.md'), `no activation event for stages under any folder: ${events.join(', ')}`);
});

test('every view, walkthrough step and menu names what exists', () => {
  const commands = new Set((manifest.contributes.commands as { command: string }[]).map((c) => c.command));
  for (const items of Object.values(manifest.contributes.menus) as { command: string }[][]) {
    for (const m of items) {
      assert.ok(commands.has(m.command), `menu entry ${m.command} is not a contributed command`);
    }
  }
  const views = (manifest.contributes.views.icm as { id: string }[]).map((v) => v.id);
  assert.deepEqual(views, ['icm.pipeline', 'icm.runs']);
  assert.ok(manifest.contributes.viewsContainers.activitybar.some((c: { id: string }) => c.id === 'icm'));
  for (const step of manifest.contributes.walkthroughs[0].steps as { description: string; media: { markdown: string } }[]) {
    for (const m of step.description.matchAll(/\(command:([\w.]+)\)/g)) {
      assert.ok(commands.has(m[1]) || m[1].endsWith('.focus'), `walkthrough links to ${m[1]}, which is not contributed`);
    }
    assert.ok(readFileSync(path.join(__dirname, '../../../..', step.media.markdown), 'utf8').length > 0);
    // A step's description renders links and bold only: a code span shows
    // its backticks (seen in code-server: "`ollama serve`").
    assert.doesNotMatch(step.description, /`/, `walkthrough step ${JSON.stringify(step.description.slice(0, 40))} has a code span`);
  }
  // The bookkeeping icm writes is out of the way by default.
  assert.equal(manifest.contributes.configurationDefaults['files.exclude']['**/.icm'], true);
  // history/ holds only what icm keeps (traces, versions, test reports, all
  // hidden): beside the .icm folder of a workspace icm ran, the folder itself
  // is hidden too, rather than shown empty.
  assert.deepEqual(manifest.contributes.configurationDefaults['files.exclude']['**/history'], { when: '.icm' });
});

test('Restricted Mode: limited, and every setting that names a program or a server is restricted', () => {
  const trust = manifest.capabilities?.untrustedWorkspaces;
  assert.equal(trust?.supported, 'limited');
  assert.ok(typeof trust.description === 'string' && trust.description.length > 0);
  const settings = Object.keys(manifest.contributes.configuration.properties as Record<string, unknown>);
  const naming = settings.filter((k) => /path|host|url|command|server/i.test(k) && k !== 'icm.trace.server');
  assert.deepEqual([...trust.restrictedConfigurations].sort(), naming.sort());
});

test('one command prefix: every command is in the ICM category, and no title repeats it', () => {
  for (const c of manifest.contributes.commands as { command: string; title: string; category?: string }[]) {
    assert.equal(c.category, 'ICM', `${c.command} has category ${c.category}`);
    assert.doesNotMatch(c.title, /^icm\b/i, `${c.command}'s title repeats the prefix`);
  }
});

test('config.toml opens as TOML, coloured by the server (no grammar shipped)', () => {
  const langs = manifest.contributes.languages as { id: string; filenames?: string[]; configuration?: string }[];
  const toml = langs.find((l) => l.id === 'toml');
  assert.ok(toml?.filenames?.includes('config.toml'), 'config.toml is not a TOML document');
  assert.equal(manifest.contributes.grammars, undefined, 'a grammar is shipped: the colours come from the language server');
  const conf = JSON.parse(readFileSync(path.join(__dirname, '../../../..', toml?.configuration as string), 'utf8'));
  assert.equal(conf.comments.lineComment, '#');
  assert.ok(conf.autoClosingPairs.some((p: { open: string }) => p.open === '"'), 'a quote typed is not closed');
});

test('in Restricted Mode nothing in the views offers a run', () => {
  const runs = ['icm.pipeline.runNext', 'icm.pipeline.runAll', 'icm.pipeline.runStage'];
  for (const [where, entries] of Object.entries(manifest.contributes.menus as Record<string, { command: string; when?: string }[]>)) {
    if (where === 'commandPalette') {
      continue; // the palette's runs are refused with the trust question
    }
    for (const e of entries.filter((x) => runs.includes(x.command))) {
      assert.match(e.when ?? '', /(^|&& )isWorkspaceTrusted\b/, `${where}: ${e.command} shows in Restricted Mode`);
    }
  }
  for (const w of manifest.contributes.viewsWelcome as { view: string; contents: string; when?: string }[]) {
    if (/▶|Run a stage/.test(w.contents)) {
      assert.match(w.when ?? '', /^isWorkspaceTrusted$/, `${w.view}'s welcome offers a run in Restricted Mode`);
    }
  }
});
