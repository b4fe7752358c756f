package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// cmdEditConfig computes an edit of a workspace's config.toml.
const cmdEditConfig = "icm.editConfig"

// configEdit is what icm.editConfig answers: the edit, or why there is
// none.
type configEdit struct {
	// Edit changes the one value; nil when there is nothing to edit.
	Edit *protocol.WorkspaceEdit `json:"edit"`
	// Line is the 0-based line of the key edited or added.
	Line *int `json:"line,omitempty"`
	// Reason says why there is no edit.
	Reason string `json:"reason,omitempty"`
}

// editConfig runs icm.editConfig: the edit of the workspace's config.toml
// that makes key of table read value, made on the editor's buffer when it
// is open (the edit then carries its version) and on the file otherwise,
// for the client to apply. With current, only a key that reads current
// now is edited; otherwise the answer is no edit, and why. config.toml is
// read by the config package's own key locator and checked with the TOML
// parser, so the rest of the file reads as it did.
func editConfig(_ context.Context, e *env, w *snapshot.Workspace, args commandArgs) (any, error) {
	key := strings.TrimSpace(args.Key)
	if key == "" || len(args.Value) == 0 {
		return nil, fault.InvalidRequest(cmdEditConfig+" needs a key and a value",
			`pass {workspace, table, key, value, current?}, as in {table: "model", key: "name", value: "qwen3.5:9b"}`)
	}
	var value, current any
	if err := json.Unmarshal(args.Value, &value); err != nil {
		return nil, fault.InvalidRequest(fmt.Sprintf("%s: the value is not JSON: %v", cmdEditConfig, err), "pass a string, a number or true/false")
	}
	o, err := w.Acquire()
	if err != nil {
		return nil, err
	}
	defer o.Release()
	ws := o.Workspace()
	path := ws.Config.Path
	if path == "" {
		path = filepath.Join(ws.Root, config.FileName)
	}
	text, doc, err := configText(e, ws.Disk.ReadFile, path)
	if err != nil {
		return nil, err
	}
	if text == nil {
		return configEdit{Reason: "the workspace has no config.toml"}, nil
	}
	name := key
	if args.Table != "" {
		name = "[" + args.Table + "] " + key
	}
	if len(args.Current) > 0 {
		if err := json.Unmarshal(args.Current, &current); err != nil {
			return nil, fault.InvalidRequest(fmt.Sprintf("%s: current is not JSON: %v", cmdEditConfig, err), "pass the value the key must have now, or leave current out")
		}
		got, ok := config.ValueOf(text, args.Table, key)
		switch {
		case !ok:
			return configEdit{Reason: fmt.Sprintf("config.toml does not set %s", name)}, nil
		case !sameValue(got, current):
			return configEdit{Reason: fmt.Sprintf("config.toml's %s is %v, not %v", name, got, current)}, nil
		}
	}
	ed, err := config.SetValue(text, args.Table, key, value)
	var ee *config.EditError
	if errors.As(err, &ee) {
		return nil, fault.ConfigInvalid(fmt.Sprintf("%s:%d: %s", ws.Rel(path), ee.Line, ee.Msg), "edit config.toml by hand", path).At(path, ee.Line)
	}
	m := document.NewMapper(text)
	uri := uriOf(path)
	var version *protocol.Integer
	if doc != nil {
		uri = doc.URI
		v := doc.Version
		version = &v
	}
	line := ed.Line - 1
	return configEdit{Line: &line, Edit: &protocol.WorkspaceEdit{DocumentChanges: []any{protocol.TextDocumentEdit{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: version},
		Edits:        []any{protocol.TextEdit{Range: toRange(m, document.Range{Start: ed.Span.Start, End: ed.Span.End}), NewText: ed.Text}},
	}}}}, nil
}

// configText is config.toml as the editor has it: its open buffer (doc),
// else the file on disk (doc nil), else nil: there is none.
func configText(e *env, read func(string) ([]byte, error), path string) ([]byte, *document.Doc, error) {
	if f, err := e.set.File(path); err == nil && f != nil {
		defer f.Release()
		return append([]byte{}, f.Doc.Text...), f.Doc, nil
	}
	data, err := read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil
	case err != nil:
		return nil, nil, fault.From(fmt.Errorf("unable to read %s: %w", path, err))
	case data == nil:
		data = []byte{}
	}
	return data, nil, nil
}

// sameValue compares a value TOML read with one JSON carried: numbers by
// value (TOML's integers are JSON's floats).
func sameValue(toml, json any) bool {
	if a, ok := number(toml); ok {
		b, ok := number(json)
		return ok && a == b
	}
	return reflect.DeepEqual(toml, json)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
