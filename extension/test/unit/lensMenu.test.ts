import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { lensTooltip, menuItems } from '../../src/lensMenu';

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

test('lensTooltip: a state lens shows its state in full on hover, other lenses nothing', () => {
  const menu = { title: 'awaiting review · Verify found problems · every tool call failed (1 of 1)', actions: [] };
  assert.equal(lensTooltip({ command: 'icm.lens.actions', arguments: [menu] }), menu.title);
  assert.equal(lensTooltip({ command: 'icm.lens.actions', arguments: [{ title: '', actions: [] }] }), undefined);
  assert.equal(lensTooltip({ command: 'icm.lens.actions' }), undefined);
  assert.equal(lensTooltip({ command: 'icm.runStage', arguments: [menu] }), undefined);
  assert.equal(lensTooltip(undefined), undefined);
});
