package config

import (
	"sort"
	"strings"
)

// Key documents one config.toml key: what the editor completes, what its
// hover says, and what Lint checks a value against.
type Key struct {
	// Table is the table the key sits in: "model", "workflow",
	// "model.servers" (an array of tables), "mcp.servers.*" (one table per
	// server, any name).
	Table string
	Name  string
	// Type is string, integer, float, boolean, duration, array or table.
	Type string
	// Values lists the allowed values of an enumerated string.
	Values []string
	// Default is the value used when the key is left out ("" when none).
	Default string
	// Doc says what the key does, for a person.
	Doc string
}

// Path is the key's dotted path, "model.name".
func (k Key) Path() string { return k.Table + "." + k.Name }

// Tables are the tables config.toml may have, with what each is for.
var Tables = map[string]string{
	"model":         "The model server and the model every stage uses unless its contract's `## Model` says otherwise.",
	"model.servers": "Several servers of one model (`[[model.servers]]`, one table each): calls are spread by free slots, a failing server is left out for a while.",
	"workflow":      "How runs go: review gates, bounds on tool calls, For each parallelism, time limits.",
	"workspace":     "The workspace's layout, where icm should not find it by itself.",
	"test":          "Defaults of `icm test`, which runs the stages' test cases (its flags win over them).",
	"vars":          "Setup-time variables: the values of the `{{NAME}}` placeholders of workspaces written for the ICM template (the answers of setup/questionnaire.md), one `NAME = \"value\"` per line. `NAME = false` drops an optional `{{?NAME}}` block.",
	"check":         "What `icm check` reports beyond its own findings.",
	"reads":         "What the stages' models may read through icm's read tool besides the files their contracts name.",
	"evidence":      "How icm works out what each output rests on (see docs/evidence.md).",
	"mcp.servers.*": "One MCP tool server stages may name in `## Tools`: a command to run over stdio, or a URL (streamable HTTP).",
}

// Keys lists every key icm reads from config.toml.
var Keys = []Key{
	{Table: "model", Name: "provider", Type: "string", Values: []string{"ollama", "openai"}, Default: `"ollama"`,
		Doc: "The model server's API: `ollama` (Ollama's native API) or `openai` (any OpenAI-compatible server: vLLM, llama-server, LM Studio, a gateway)."},
	{Table: "model", Name: "name", Type: "string", Default: `"qwen3.5:9b"`,
		Doc: "The model, as the server names it (`ollama list`). A contract's `model:` line and the editor's `icm.model` setting override it."},
	{Table: "model", Name: "base_url", Type: "string",
		Doc: "The server's address. For Ollama, empty means `OLLAMA_HOST`, else `http://127.0.0.1:11434`; the editor's `icm.ollama.host` setting overrides it. For `openai` it usually ends in `/v1`."},
	{Table: "model", Name: "api_key_env", Type: "string",
		Doc: "The name of an environment variable holding the API key (never the key itself)."},
	{Table: "model", Name: "temperature", Type: "float",
		Doc: "Sampling temperature, 0 to 2: lower is more predictable. Empty: the model's default."},
	{Table: "model", Name: "think", Type: "boolean",
		Doc: "Let a thinking model reason before it answers (`true`), or not (`false`). Empty: the model's default."},
	{Table: "model", Name: "num_ctx", Type: "integer", Default: "0",
		Doc: "A fixed context window in tokens. 0 sizes the window per call from the prompt and `max_output`, up to the model's length."},
	{Table: "model", Name: "max_output", Type: "integer", Default: "4096",
		Doc: "The room kept for each answer, in tokens (`num_predict`). An answer that reaches it is cut and not saved."},
	{Table: "model", Name: "context_length", Type: "integer",
		Doc: "The model's window when the server cannot say (OpenAI-compatible servers)."},
	{Table: "model", Name: "timeout", Type: "duration", Default: `"10m"`,
		Doc: "Bounds one model call, retries included, like `\"10m\"`."},
	{Table: "model", Name: "slots", Type: "integer",
		Doc: "How many calls the server takes at once (Ollama's `OLLAMA_NUM_PARALLEL`). icm predicts from it how much of each prompt the server can reuse; empty: icm assumes one slot and says so."},
	{Table: "model", Name: "multiuser_cache", Type: "boolean",
		Doc: "Whether the server copies a prompt start it already computed into another slot (Ollama's `OLLAMA_MULTIUSER_CACHE=1`), so For each items that run at once compute their shared start once. Safe only where the model runs on Ollama's new engine: `icm doctor` says whether yours does."},
	{Table: "model", Name: "servers", Type: "array",
		Doc: "Several servers of the same model, as `[[model.servers]]` tables."},
	{Table: "model.servers", Name: "url", Type: "string", Doc: "The server's address."},
	{Table: "model.servers", Name: "slots", Type: "integer", Default: "1", Doc: "How many calls the server takes at once (its `OLLAMA_NUM_PARALLEL`)."},
	{Table: "model.servers", Name: "multiuser_cache", Type: "boolean", Doc: "Whether this server shares a computed prompt start between its slots (`OLLAMA_MULTIUSER_CACHE=1`)."},
	{Table: "model.servers", Name: "api_key_env", Type: "string", Doc: "The environment variable holding this server's API key."},
	{Table: "workflow", Name: "gate", Type: "string", Values: []string{"explicit", "rerun"}, Default: `"explicit"`,
		Doc: "`explicit`: a stage waits for an approval (`icm approve`, the Approve lens). `rerun`: running the next stage approves the one before it."},
	{Table: "workflow", Name: "max_tool_calls", Type: "integer", Default: "24",
		Doc: "Bounds the tool calls of one stage run (of one item in a For each stage); the model then writes its answer from what it has."},
	{Table: "workflow", Name: "parallel", Type: "integer", Default: "1",
		Doc: "How many For each items run at once. Match it to the model server's parallel slots."},
	{Table: "workflow", Name: "warm_first", Type: "boolean", Default: "true",
		Doc: "A For each stage sends its first item alone until the server has read its prompt (the answer's first token), then the others `parallel` at a time: they share most of that prompt, which the server then reuses instead of computing it once per item. `false` starts `parallel` items at once."},
	{Table: "workflow", Name: "max_tool_result_chars", Type: "integer", Default: "12000",
		Doc: "A tool result longer than this is cut (head and tail kept) before the model reads it."},
	{Table: "workflow", Name: "tool_timeout", Type: "duration", Default: `"2m"`, Doc: "Bounds one tool call, like `\"2m\"`."},
	{Table: "workflow", Name: "script_timeout", Type: "duration", Default: `"60s"`, Doc: "Bounds a `## Script` stage whose contract gives no timeout."},
	{Table: "workflow", Name: "token_budget", Type: "integer", Default: "8000",
		Doc: "The assembled context of a stage above this many tokens gets a warning in `icm check` and the editor (a note at the method's default, 8000)."},
	{Table: "workspace", Name: "stages", Type: "string",
		Doc: "The folder holding the numbered stage folders, like `\"phases\"`. Empty: `pipeline/`, else `stages/`, else the one top-level folder holding numbered folders with a `CONTEXT.md`."},
	{Table: "workflow", Name: "max_file_size", Type: "size", Default: `"8MB"`,
		Doc: "The largest file icm reads from the workspace (an input, a reference, an output it checks), like `\"8MB\"` or `\"512KB\"`. A larger file is an error in `icm check`, never read into memory."},
	{Table: "test", Name: "models", Type: "array",
		Doc: "The models of `icm test`'s case × model matrix, like `[\"qwen3.5:9b\", \"llama3.1:8b\"]`; the editor offers one test profile per model. Empty: each stage's own model."},
	{Table: "test", Name: "repeat", Type: "integer", Default: "1",
		Doc: "How many times `icm test` runs each case per model, each repeat with its own seed."},
	{Table: "test", Name: "parallel", Type: "integer",
		Doc: "How many cases `icm test` runs at once. Empty: the slots of `[[model.servers]]`, else 1."},
	{Table: "test", Name: "seed", Type: "integer", Default: "1",
		Doc: "The seed of `icm test`'s first repeat; repeat N sends seed + N - 1 with every model call."},
	{Table: "test", Name: "judge", Type: "string",
		Doc: "The model that scores `rubric` lines of test cases. Empty: `[model] name`."},
	{Table: "", Name: "vars", Type: "table",
		Doc: "`[vars]`: the workspace's setup-time variables, `NAME = \"value\"`, filling the `{{NAME}}` placeholders of workspaces written for the ICM template; `NAME = false` drops an optional `{{?NAME}}` block."},
	{Table: "check", Name: "conventions", Type: "string", Values: []string{"icm-template"},
		Doc: "An opt-in profile of house rules `icm check` reports as warnings: `icm-template` checks the ICM template's own conventions (the rules of its `bin/validate.py`), with icm's own path resolution. `icm check --conventions` does the same for one run."},
	{Table: "reads", Name: "workspace", Type: "boolean", Default: "false",
		Doc: "Asks that the stages' models may read any file of the workspace, not only the files their contracts name. A workspace cannot widen its own reads: this is a part of its trust (`icm trust --show` lists it), in force once its person trusts it. A person allows it for every workspace with `[reads] workspace = true` in their own settings file."},
	{Table: "evidence", Name: "embed_model", Type: "string",
		Doc: "An embedding model of the model server (`ollama pull nomic-embed-text`): its vectors add a semantic score beside the lexical one, so a paraphrase of a source counts as supported. Empty: lexical only. A failure (server down, model missing) leaves the lexical result and a note; an untrusted workspace asks the server nothing."},
	{Table: "evidence", Name: "embed_threshold", Type: "float", Default: "0.75",
		Doc: "The cosine similarity, above 0 and at most 1, at or above which the embedding model's score supports a unit. The default was not measured on any model: set it from the model you name."},
	{Table: "mcp.servers.*", Name: "command", Type: "string", Doc: "The program that serves MCP over stdio (`icm` runs this same binary: `args = [\"mcp\", \"search\"]`)."},
	{Table: "mcp.servers.*", Name: "args", Type: "array", Doc: "The command's arguments."},
	{Table: "mcp.servers.*", Name: "env", Type: "table", Doc: "Environment variables for the command; the server gets a minimal environment besides."},
	{Table: "mcp.servers.*", Name: "url", Type: "string", Doc: "A streamable-HTTP MCP server's address, instead of a command."},
	{Table: "mcp.servers.*", Name: "headers", Type: "table", Doc: "HTTP headers sent to a URL server."},
}

// Lookup finds a key by its dotted path; "mcp.servers.search.command"
// finds the mcp.servers.* key.
func Lookup(path string) (Key, bool) {
	table, name := splitPath(path)
	for _, k := range Keys {
		if k.Table == table && k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// KeysOf lists the keys of a table ("model", "mcp.servers.search"), sorted.
func KeysOf(table string) []Key {
	table = genericTable(table)
	var out []Key
	for _, k := range Keys {
		if k.Table == table {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// splitPath splits a dotted key path into its generic table and its name.
func splitPath(path string) (table, name string) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return "", path
	}
	return genericTable(path[:i]), path[i+1:]
}

// genericTable maps "mcp.servers.search" to "mcp.servers.*".
func genericTable(table string) string {
	if strings.HasPrefix(table, "mcp.servers.") && strings.Count(table, ".") == 2 {
		return "mcp.servers.*"
	}
	return table
}
