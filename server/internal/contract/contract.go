// Package contract parses a stage contract (a stage's CONTEXT.md) into a
// Contract that keeps the byte range of every section, entry and path, and
// reports what is wrong with it as Findings. It reads only the contract's
// own text; checks that need the rest of the workspace live in package
// check.
package contract

import (
	"github.com/icm-tool/icm/server/internal/document"
)

// Contract is a parsed stage contract.
type Contract struct {
	// File is the contract's absolute path.
	File string `json:"file"`
	// Title is the stage name from "# Stage: NAME" or "# NAME".
	Title      string         `json:"title"`
	TitleRange document.Range `json:"title_range"`
	// Summary is the text between the title and the first section.
	Summary string `json:"summary,omitempty"`
	// Sections lists every ## section in order, known or not.
	Sections []Section `json:"sections"`
	Inputs   []Input   `json:"inputs"`
	// InputNotation is "list", "table", "mixed" or "" when there are no inputs.
	InputNotation string         `json:"input_notation,omitempty"`
	Tools         *Tools         `json:"tools,omitempty"`
	ForEach       *ForEach       `json:"for_each,omitempty"`
	Process       string         `json:"process"`
	ProcessRange  document.Range `json:"process_range"`
	Outputs       []Output       `json:"outputs"`
	// OtherOutputs are Outputs rows that name something other than a file
	// (a deployed site, commits): shown, never written by icm.
	OtherOutputs []Output `json:"other_outputs,omitempty"`
	Model        *Model   `json:"model,omitempty"`
	Verify       []Check  `json:"verify,omitempty"`
	Script       *Script  `json:"script,omitempty"`
	Gate         *Gate    `json:"gate,omitempty"`
	// Lines is the contract's line count.
	Lines int `json:"lines"`
	// FrontMatter is the YAML front matter at the top, as written without
	// its fences: metadata, never a section.
	FrontMatter string `json:"front_matter,omitempty"`
	// FallbackInstructions is set when the contract has no Process
	// section but other sections of prose: those are the instructions
	// (Instructions).
	FallbackInstructions bool `json:"fallback_instructions,omitempty"`
	// ExternalOutputs are Outputs rows naming a file outside the stage's
	// output/ folder (a shared document the stage edits, a folder of the
	// workspace): icm does not write them, but a later stage that reads
	// the same path reads what this stage produces.
	ExternalOutputs []Output `json:"external_outputs,omitempty"`
	// vars are the setup-time variables the contract was read with.
	vars Vars
	// Findings are problems found in the contract's own text.
	Findings []Finding `json:"findings"`
}

// Section is one ## section of a contract.
type Section struct {
	// Name is the heading text as written.
	Name string `json:"name"`
	// Kind is the known section it is ("inputs", "tools", ...), or "" when
	// icm does not use it.
	Kind string `json:"kind,omitempty"`
	// Heading covers the heading line; Range the whole section.
	Heading document.Range `json:"heading"`
	Range   document.Range `json:"range"`
	// Text is the section body as written (kept for unknown sections).
	Text string `json:"text"`
	// Table holds the section's first table, for sections such as
	// Checkpoints and Audit that icm shows but does not run.
	Table *Table `json:"table,omitempty"`
}

// Table is a table kept from a section icm shows but does not interpret.
type Table struct {
	Header []string   `json:"header"`
	Rows   [][]string `json:"rows"`
}

// Layers of the method. Inputs name layer 3 or 4; 0-2 are loaded by icm.
const (
	LayerIdentity  = 0
	LayerRouting   = 1
	LayerContract  = 2
	LayerReference = 3
	LayerWorking   = 4
)

// Input is one entry of the Inputs section.
type Input struct {
	// Layer is 3 (reference) or 4 (working); 0 when the entry gave an
	// unusable layer (a finding says so).
	Layer int `json:"layer"`
	// LayerInferred is true when the entry named no layer and icm chose one.
	LayerInferred bool `json:"layer_inferred,omitempty"`
	// Path is the file as written, relative to the stage folder, without
	// any "#Section" suffix. Empty for a non-file row.
	Path      string         `json:"path,omitempty"`
	PathRange document.Range `json:"path_range"`
	// Scope limits the input to some headings of the file.
	Scope *Scope `json:"scope,omitempty"`
	// NonFile is set for rows that name something other than a file
	// ("(conversation)", a command, a URL); they are shown, never loaded.
	NonFile bool `json:"non_file,omitempty"`
	// What is the text a non-file row names, as written ("Conversation").
	What string `json:"what,omitempty"`
	// Optional is set when the entry says the file may be missing ("if
	// exists", "optional"); a missing optional input is a note.
	Optional bool `json:"optional,omitempty"`
	// Glob is set when the path holds * or ?: every matching file is loaded.
	Glob bool `json:"glob,omitempty"`
	// Templated is set when the path holds a placeholder ("[slug]",
	// "{{NAME}}", "<repo>") and cannot be resolved until it is filled in.
	Templated bool `json:"templated,omitempty"`
	// Braces is the path as the contract spells it, when it holds a brace
	// list ("{grade,term}_breakdown.json") and this input is one of the
	// files the list names.
	Braces string `json:"braces,omitempty"`
	// Written is the path as the contract spells it, when filling its
	// setup-time variables ([vars]) changed it into Path.
	Written string `json:"written,omitempty"`
	// Unset names the setup-time variables of the path that have no value:
	// the path cannot be resolved until they are set.
	Unset []string `json:"unset,omitempty"`
	// Embedded is set when the path was found among other words of its
	// cell ("Pasted text, or `answers.md`"): that it is an input rests on
	// reading those words, so a missing file is a note, not an error.
	Embedded bool `json:"embedded,omitempty"`
	// Source and Why are the table's descriptive columns (or the text
	// after the path in list notation).
	Source string `json:"source,omitempty"`
	Why    string `json:"why,omitempty"`
	// Notation is "list" or "table".
	Notation string `json:"notation"`
	// Range covers the whole entry (list item or table row).
	Range document.Range `json:"range"`
}

// Scope selects headings of an input file.
type Scope struct {
	// Headings are the headings named, in order.
	Headings []string `json:"headings,omitempty"`
	// Through is true for `"A" through "B"`: everything from A to the end of B.
	Through bool `json:"through,omitempty"`
	// Raw is the scope as written.
	Raw string `json:"raw"`
	// FreeText is true when the scope names no heading in quotes. icm
	// loads the headings it names (Names) when the file has them all, and
	// the whole file otherwise ("Relevant pillar section only").
	FreeText bool `json:"free_text,omitempty"`
	// Names are the heading names an unquoted scope mentions ("Avatar +
	// Current Pain" gives Avatar and Current Pain).
	Names []string `json:"names,omitempty"`
	// PathOnly is set for "path only": the model is given the path, not
	// the content.
	PathOnly bool `json:"path_only,omitempty"`
	// Table is set when the scope names part of a table (a column, a row):
	// the whole file is loaded.
	Table bool           `json:"table,omitempty"`
	Range document.Range `json:"range"`
}

// Tools is the Tools section.
type Tools struct {
	// None is true for "none".
	None    bool           `json:"none"`
	Servers []ToolServer   `json:"servers,omitempty"`
	Range   document.Range `json:"range"`
}

// ToolServer is one "server: a, b" line.
type ToolServer struct {
	Server      string         `json:"server"`
	ServerRange document.Range `json:"server_range"`
	All         bool           `json:"all,omitempty"`
	Tools       []ToolName     `json:"tools,omitempty"`
	Range       document.Range `json:"range"`
}

// ToolName is one tool named on a Tools line.
type ToolName struct {
	Name  string         `json:"name"`
	Range document.Range `json:"range"`
}

// Allowed returns the allow-list for the MCP client: server -> tool names,
// with nil meaning every tool of that server.
func (t *Tools) Allowed() map[string][]string {
	if t == nil || t.None {
		return nil
	}
	out := make(map[string][]string, len(t.Servers))
	for _, s := range t.Servers {
		if s.All {
			out[s.Server] = nil
			continue
		}
		names := make([]string, len(s.Tools))
		for i, n := range s.Tools {
			names[i] = n.Name
		}
		out[s.Server] = append(out[s.Server], names...)
	}
	return out
}

// ForEach is "ITEM in PATH": the stage runs once per ## section of PATH.
type ForEach struct {
	Item      string         `json:"item"`
	Path      string         `json:"path"`
	PathRange document.Range `json:"path_range"`
	Range     document.Range `json:"range"`
}

// Output is one file the stage writes.
type Output struct {
	// Path is relative to the stage folder, e.g. "output/notes.md"; empty
	// for a non-file row.
	Path string `json:"path"`
	// Name is the artifact's description from a table, or the file name.
	Name      string         `json:"name,omitempty"`
	Format    string         `json:"format,omitempty"`
	PathRange document.Range `json:"path_range"`
	Range     document.Range `json:"range"`
	// Templated is set when the path holds a placeholder.
	Templated bool `json:"templated,omitempty"`
	// Dir is set when the output is a folder ("output/[slug]/").
	Dir bool `json:"dir,omitempty"`
	// NonFile is set for rows that name something other than a file (a
	// deployed site, commits); they are shown, never written by icm.
	NonFile bool `json:"non_file,omitempty"`
	// What is the text a non-file row names, as written ("Production URL").
	What string `json:"what,omitempty"`
}

// Model holds a contract's model overrides.
type Model struct {
	// Models lists the model and its fallbacks in order.
	Models      []string `json:"models,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	NumCtx      int      `json:"num_ctx,omitempty"`
	MaxOutput   int      `json:"max_output,omitempty"`
	Think       *bool    `json:"think,omitempty"`
	// Format is "json" or a JSON Schema file relative to the stage folder.
	Format      string         `json:"format,omitempty"`
	FormatRange document.Range `json:"format_range"`
	Range       document.Range `json:"range"`
}

// Check is one Verify line.
type Check struct {
	// Kind is the check's name: non-empty, headings, max-words, min-words,
	// sources, no-placeholders, json-schema, code-blocks, run.
	Kind string `json:"kind"`
	// Arg is the rest of the line ("2..8", "schema.json", "parse", a command).
	Arg string `json:"arg,omitempty"`
	// Min and Max bound counts (headings, words); -1 when open.
	Min   int            `json:"min,omitempty"`
	Max   int            `json:"max,omitempty"`
	Range document.Range `json:"range"`
}

// Script is a command run instead of a model.
type Script struct {
	Command string `json:"command"`
	// TimeoutSeconds is 0 when the contract gives none.
	TimeoutSeconds float64        `json:"timeout_seconds,omitempty"`
	Range          document.Range `json:"range"`
}

// Gate is the review gate setting.
type Gate struct {
	// Auto approves automatically when every Verify check passes.
	Auto  bool           `json:"auto"`
	Range document.Range `json:"range"`
}
