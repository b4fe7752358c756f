package lsp

import (
	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/fault"
)

// errorData is the data of icm's JSON-RPC error replies and the error of
// icm/runFinished (docs/lsp-protocol.md): what kind of problem it is,
// where, the hint for a person and the fixes a client may offer as
// buttons. Clients decide by kind and action ids, never by the message.
type errorData struct {
	Kind     string             `json:"kind"`
	Stage    string             `json:"stage,omitempty"`
	Hint     string             `json:"hint,omitempty"`
	Location *protocol.Location `json:"location,omitempty"`
	Actions  []actionData       `json:"actions"`
}

// actionData is one fix. Which fields are set depends on the id.
type actionData struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Stage is the stage approve, run and diff actions act on (in the
	// request's workspace).
	Stage string `json:"stage,omitempty"`
	// Location is what open-file opens.
	Location *protocol.Location `json:"location,omitempty"`
	// Model is what pull-model downloads.
	Model string `json:"model,omitempty"`
	// URL is the model server start-server and pull-model mean; Command
	// starts it, when icm knows how.
	URL     string `json:"url,omitempty"`
	Command string `json:"command,omitempty"`
	// Setting is the key of the settings (initializationOptions) that
	// choose-model and set-server change: "model" or "ollamaHost".
	Setting string `json:"setting,omitempty"`
}

// settingOf names the server setting an action changes.
var settingOf = map[fault.ActionID]string{
	fault.ChooseModel: "model",
	fault.SetServer:   "ollamaHost",
}

// dataOf converts a fault to its wire form.
func dataOf(f *fault.Error) *errorData {
	d := &errorData{Kind: string(f.Kind), Stage: f.Stage, Hint: f.Hint, Location: locationOf(f.File, f.Line), Actions: []actionData{}}
	for _, a := range f.Actions {
		d.Actions = append(d.Actions, actionData{ID: string(a.ID), Title: a.Title(), Stage: a.Stage, Location: locationOf(a.File, a.Line),
			Model: a.Model, URL: a.URL, Command: a.Command, Setting: settingOf[a.ID]})
	}
	return d
}

// locationOf is a file and 1-based line as an LSP location; nil without
// a file.
func locationOf(file string, line int) *protocol.Location {
	if file == "" {
		return nil
	}
	l := protocol.UInteger(0)
	if line > 0 {
		l = protocol.UInteger(line - 1)
	}
	p := protocol.Position{Line: l, Character: 0}
	return &protocol.Location{URI: uriOf(file), Range: protocol.Range{Start: p, End: p}}
}

// codeOf is the JSON-RPC error code of a kind of problem.
func codeOf(k fault.Kind) int64 {
	switch k.Class() {
	case fault.ClassInvalid:
		return jsonrpc2.CodeInvalidParams
	case fault.ClassUnknown:
		return jsonrpc2.CodeMethodNotFound
	case fault.ClassCancelled:
		return codeRequestCancelled
	}
	return codeRequestFailed
}

// faultReply is the error reply for any error a handler returns.
func faultReply(err error) *jsonrpc2.Error {
	f := fault.From(err)
	e := &jsonrpc2.Error{Code: codeOf(f.Kind), Message: f.Msg}
	e.SetError(dataOf(f))
	return e
}
