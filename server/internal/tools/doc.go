// Package tools is icm's MCP client: it finds the tool servers a workspace
// configures, starts only those a stage names, offers their allowed tools to
// the model as server_tool functions, and runs the model's calls with a
// deadline, argument checks and clean error reporting.
//
// # Where servers come from
//
// LoadServers merges three sources; when two define the same server name the
// first one here wins whole (fields are never mixed across files):
//
//  1. config.toml [mcp.servers.NAME]: icm's own file, so it is the one a
//     person edits on purpose for icm.
//  2. .vscode/mcp.json ("servers"): what VS Code users already have.
//  3. .mcp.json ("mcpServers"): the portable format (Claude Code, Cursor,
//     Copilot).
//
// Values may use ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome},
// ${env:NAME}, ${NAME} and ${NAME:-default}. ${input:ID} cannot be prompted
// for outside VS Code: the server is reported and left out.
//
// # Why stdio servers are spawned here and not by mcp-go
//
// mcp-go's stdio transport starts the child itself; with WithCommandFunc we
// could set the environment and the process group, but its Close signals only
// the child (not the group), and it waits for the child only inside Close, so
// a server that dies at start-up or mid-call is noticed late. We therefore
// start the process ourselves (minimal environment, own process group, stderr
// drained into a bounded ring) and hand its pipes to transport.NewIO. A wait
// goroutine notices the exit at once; Close closes stdin, waits briefly, then
// sends SIGTERM and SIGKILL to the whole group.
//
// # Protocol version
//
// Clients are pinned to the newest initialize-handshake revision
// (mcp.LATEST_LEGACY_PROTOCOL_VERSION) rather than probing with
// server/discover first: every server in use speaks it, it saves a round trip
// (and a five-second wait on servers that ignore unknown methods), and it
// avoids the 2026-07-28 stdio deadlock reported against mcp-go (#976).
package tools
