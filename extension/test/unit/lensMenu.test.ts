import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { menuItems, presentLens } from '../../src/lensMenu';

test('menuItems: the actions in the server\'s order, and nothing the extension cannot run', () => {
  const items = menuItems({
    title: 'awaiting review · output edited, not approved yet',
    actions: [
      { title: '✓ Approve', command: 'icm.approveStage', arguments: [{ workspace: '/w', stage: '01-scope' }] },
      { title: "⇄ Compare with the model's version", command: 'icm.output.compare', arguments: [{ workspace: '/w', stage: '01-scope' }] },
      { title: '', command: 'icm.runStage' },
      { title: 'From a newer server', command: '' },
    ],
  });
  assert.deepEqual(
    items.map((i) => i.label),
    ['✓ Approve', "⇄ Compare with the model's version"],
  );
  assert.deepEqual(menuItems(undefined), []);
});

test('presentLens: a state lens with actions opens them, its state in full on hover', () => {
  const shown = presentLens({
    title: 'awaiting review',
    command: 'icm.status',
    arguments: [
      {
        workspace: '/w',
        stage: '01-scope',
        state: 'awaiting review · output edited, not approved yet',
        actions: [
          { title: '✓ Approve', command: 'icm.approveStage', arguments: [{ workspace: '/w', stage: '01-scope' }] },
          { title: '▶ Re-run', command: 'icm.runStage', arguments: [{ workspace: '/w', stage: '01-scope' }] },
        ],
      },
    ],
  });
  assert.equal(shown.title, 'awaiting review');
  assert.equal(shown.command, 'icm.lens.actions');
  assert.equal(shown.tooltip, 'awaiting review · output edited, not approved yet');
  const menu = shown.arguments?.[0] as { title: string; actions: { title: string }[] };
  assert.equal(menu.title, 'awaiting review · output edited, not approved yet');
  assert.deepEqual(menuItems(menu as never).map((i) => i.label), ['✓ Approve', '▶ Re-run']);
});

test('presentLens: a lens without actions keeps its command; a state without actions is its hover', () => {
  const run = { title: '▶ Run stage', command: 'icm.runStage', arguments: [{ workspace: '/w', stage: '01-scope' }] };
  assert.deepEqual(presentLens(run), run);
  const item = presentLens({ title: 'item 2 of 4', command: 'icm.status', arguments: [{ workspace: '/w', state: 'item 2 of 4: Module 2 · as the model wrote it', actions: [] }] });
  assert.equal(item.command, 'icm.status');
  assert.equal(item.tooltip, 'item 2 of 4: Module 2 · as the model wrote it');
  assert.deepEqual(presentLens({ title: 'x', command: 'icm.status' }), { title: 'x', command: 'icm.status' });
  // A newer server's action the extension cannot run is no menu.
  const odd = presentLens({ title: 'approved', command: 'icm.status', arguments: [{ actions: [{ title: 'x', command: '' }] }] });
  assert.equal(odd.command, 'icm.status');
});
