// Package browser is icm's page-reading MCP server: fetch_snippet,
// fetch_urls, fetch_structure, extract and summarize. Pages come from a
// Backend (plain HTTP by default, or camofox or headless Chromium for
// script-heavy sites), are reduced to their main content as Markdown, and
// for summarize and extract are read whole: cut into chunks on block
// boundaries, each chunk mapped through the model concurrently, the
// partial answers reduced to one. Page text reaches the model only inside
// fences that mark it as untrusted data.
package browser
