package report

import "encoding/json"

// ToolInfo is one tool a tool server offers, as package tools lists it
// and the counts, the editor's hovers and completions read it.
type ToolInfo struct {
	Server string
	// Name is the server's own name for the tool.
	Name string
	// Exposed is the name the model sees (tools.ExposedName).
	Exposed     string
	Title       string
	Description string
	// InputSchema is the JSON Schema of the arguments as the server sent
	// it.
	InputSchema json.RawMessage
}

// PullProgress is one step of a model download: the model server's
// status line, the layer (Digest) and its bytes done (Completed) of Total
// (0 when unknown). The session copies it from the model client's.
type PullProgress struct {
	Status    string
	Digest    string
	Total     int64
	Completed int64
}
