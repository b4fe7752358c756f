import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { previewHtml } from '../../src/contextPresent';

test('the preview renders the server\'s Markdown, wraps its text and runs nothing', () => {
  const html = previewHtml('<h1>Assembled context: 04-draft</h1><table><tr><td>1,230</td></tr></table><pre><code>a long line</code></pre>', {
    title: 'Assembled context: <04-draft>',
    cspSource: 'vscode-webview://x',
  });
  // A page of its own, named for the tab's reader.
  assert.match(html, /<title>Assembled context: &lt;04-draft&gt;<\/title>/);
  assert.match(html, /<table><tr><td>1,230<\/td><\/tr><\/table>/);
  // The prompt's text wraps at the window's width, tables keep their cells.
  assert.match(html, /pre[^{]*\{[^}]*white-space:\s*pre-wrap/);
  assert.match(html, /overflow-wrap:\s*anywhere/);
  assert.match(html, /table[^{]*\{[^}]*border-collapse/);
  // The context holds the workspace's files as they are: no script runs
  // and nothing is fetched.
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1] ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.doesNotMatch(csp, /script-src/);
  assert.match(csp, /style-src vscode-webview:\/\/x 'unsafe-inline'/);
});
