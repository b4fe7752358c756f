// Package schemas compiles every JSON Schema icm uses, in one place and
// one way: a schema loads nothing icm does not hold. A reference ($ref,
// $dynamicRef, a $schema that names no known draft) is followed within
// the same document, or, for a schema file of a workspace, to another
// schema file inside that workspace, read through the workspace's own
// file layer (its read cap, regular files only, no link out, nothing
// under .git). Any other file of the machine, and any web address, is
// refused before anything is opened, with a RefError that says where the
// reference is and what to do.
package schemas

import (
	"bytes"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// memBase is the address of a schema compiled from memory: references
// relative to it resolve to addresses no loader serves.
const memBase = "mem:///"

// Compile compiles a schema held in memory (icm's own, a tool server's, a
// model's); name says which in errors. It may refer only to itself.
func Compile(name string, raw []byte) (*jsonschema.Schema, error) {
	return compile(memBase+name, name, raw, &refs{})
}

// CompileIn compiles raw, the content of the schema file abs of ws (read
// by the caller through ws.Files). Its references may name the same
// document or other schema files inside ws, which are read through
// ws.Files after ws.Resolve has found them inside; anything else is a
// RefError.
func CompileIn(ws *workspace.Workspace, abs string, raw []byte) (*jsonschema.Schema, error) {
	return compile(fileURL(abs), ws.Rel(abs), raw, &refs{ws: ws})
}

// compile is the one use of the library's compiler: draft 2020-12 for a
// schema that names none, and every load through l.
func compile(at, name string, raw []byte, l *refs) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema %s is not JSON (%w): fix its syntax", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(l)
	if err := c.AddResource(at, doc); err != nil {
		return nil, fmt.Errorf("unable to load schema %s: %w", name, err)
	}
	sch, err := c.Compile(at)
	if err == nil {
		return sch, nil
	}
	if re := l.first; re != nil {
		re.Schema = name
		re.Line, re.Keyword, re.Ref = refAt(raw, at, re.URL)
		return nil, re
	}
	// The library names the schema by its address; a person knows it by
	// the name.
	return nil, fmt.Errorf("schema %s is not valid: %s: make it a JSON Schema (draft 2020-12 unless its $schema names another)", name, oneLine(strings.ReplaceAll(err.Error(), at, name)))
}

// fileURL is the address of the file abs as the library writes it.
func fileURL(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a drive letter
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
