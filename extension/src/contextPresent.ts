// The assembled context as a person reads it: the server's Markdown
// rendered (its token table a table, its prompt text wrapped), in a page
// titled as the server titles it ("Assembled context: 04-draft"). Plain data out, so it is tested
// without VS Code; contextPreview.ts shows it.

/** Escapes text for HTML. */
function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * The page around body (the Markdown rendered to HTML). The context holds
 * the workspace's files as they are, so the page runs no script and
 * fetches nothing (its policy allows only its own styles); the text
 * wraps at the window's width, code included, and a table keeps its
 * cells, as two editors side by side leave little room.
 */
export function previewHtml(body: string, opts: { title: string; cspSource: string }): string {
  const csp = `default-src 'none'; style-src ${opts.cspSource} 'unsafe-inline'`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(opts.title)}</title>
<style>
body { font-family: var(--vscode-markdown-font-family, var(--vscode-font-family)); font-size: var(--vscode-markdown-font-size, 14px); line-height: 1.5; padding: 0 1em 2em; overflow-wrap: anywhere; }
pre, code { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--vscode-textCodeBlock-background); padding: 0.5em 0.75em; border-radius: 3px; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid var(--vscode-panel-border, #8884); padding: 0.15em 0.45em; text-align: left; vertical-align: top; }
td:not(:first-child), th:not(:first-child) { text-align: right; white-space: nowrap; }
</style>
</head>
<body>
${body}
</body>
</html>
`;
}
