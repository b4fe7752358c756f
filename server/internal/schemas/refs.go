package schemas

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// maxRefFiles caps the schema files one compile loads: a chain of
// references is a handful of files, never thousands.
const maxRefFiles = 64

// RefError is a reference icm will not follow: to a file outside the
// workspace, to a web address, to a workspace file it cannot read.
type RefError struct {
	// Schema is the schema that refers (workspace-relative), Line the line
	// of the reference in it (0 when it could not be placed), Keyword the
	// keyword ("$ref") and Ref the reference as written there (the
	// address it resolved to when it could not be placed).
	Schema  string
	Line    int
	Keyword string
	Ref     string
	// URL is the address the reference resolved to.
	URL string
	// Reason says why it is refused, Todo what to do.
	Reason, Todo string
	// Err is the workspace's own refusal, when reading was refused.
	Err error
}

func (e *RefError) Error() string {
	where := e.Schema
	if e.Line > 0 {
		where = fmt.Sprintf("%s line %d", e.Schema, e.Line)
	}
	return fmt.Sprintf("schema %s: %s %s %s: %s", where, e.Keyword, e.Ref, e.Reason, e.Todo)
}

func (e *RefError) Unwrap() error { return e.Err }

// Fault is a schema reference icm refused, with what to do instead.
func (e *RefError) Fault() *fault.Error { return fault.Failed(e.Error(), e.Todo, nil) }

// refs is the loader of one compile: it serves the schema files of ws,
// when there is one, and refuses every other address, remembering the
// first refusal for the error the compile returns.
type refs struct {
	ws    *workspace.Workspace
	files int
	bytes int64
	first *RefError
}

const (
	onlyInside = "icm follows a reference only within the same schema or to a schema file inside the workspace"
	copyIn     = "copy the schema it needs into the workspace and refer to it by a path relative to this schema, or put it under $defs"
)

// Load reads the schema at address u, or refuses it.
func (l *refs) Load(u string) (any, error) {
	doc, re := l.load(u)
	if re != nil {
		re.URL, re.Keyword, re.Ref = u, "$ref", u
		if l.first == nil {
			l.first = re
		}
		return nil, re
	}
	return doc, nil
}

func (l *refs) load(u string) (any, *RefError) {
	pu, err := url.Parse(u)
	switch {
	case err != nil:
		return nil, &RefError{Reason: "is not an address icm can read", Todo: copyIn}
	case l.ws == nil:
		return nil, &RefError{Reason: "leads out of a schema that may refer only to itself", Todo: "put what it needs under $defs"}
	case pu.Scheme == "http" || pu.Scheme == "https":
		return nil, &RefError{Reason: "is a web address, and icm loads no schema from the network; " + onlyInside, Todo: copyIn}
	case pu.Scheme != "file" || (pu.Host != "" && pu.Host != "localhost"):
		return nil, &RefError{Reason: "is not a file of the workspace; " + onlyInside, Todo: copyIn}
	}
	path, err := jsonschema.FileLoader{}.ToFile(u)
	if err != nil {
		return nil, &RefError{Reason: "is not an address icm can read", Todo: copyIn}
	}
	rel, ok := l.ws.Disk.Rel(path)
	if !ok {
		return nil, &RefError{Reason: "is outside the workspace; " + onlyInside, Todo: copyIn}
	}
	if l.files++; l.files > maxRefFiles {
		return nil, &RefError{Reason: fmt.Sprintf("is one schema file too many (icm loads at most %d for one schema)", maxRefFiles), Todo: "put the schemas together in fewer files"}
	}
	abs, err := l.ws.Resolve(l.ws.Root, rel)
	if err == nil {
		var data []byte
		if data, err = l.ws.Files.ReadFile(abs); err == nil {
			return l.decode(rel, data)
		}
	}
	re := &RefError{Reason: "cannot be read: " + err.Error(), Todo: "refer to a regular schema file inside the workspace", Err: err}
	var h interface{ Hint() string }
	if errors.As(err, &h) {
		re.Todo = h.Hint()
	}
	var esc *workspace.EscapeError
	if errors.As(err, &esc) && !esc.Never {
		re.Reason = "leads outside the workspace (" + err.Error() + "); " + onlyInside
		re.Todo = copyIn
	}
	return nil, re
}

// decode parses one loaded schema file, counting it against the read cap
// of the workspace: all the files of one schema together take no more
// than one file may.
func (l *refs) decode(rel string, data []byte) (any, *RefError) {
	l.bytes += int64(len(data))
	if max := l.ws.Disk.MaxRead(); l.bytes > max {
		return nil, &RefError{Reason: fmt.Sprintf("takes the schema's files past %s together, what icm reads of one file", workspace.FormatSize(max)),
			Todo: "make the schemas smaller, or raise [workflow] max_file_size in config.toml"}
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, &RefError{Reason: fmt.Sprintf("names %s, which is not JSON (%v)", rel, err), Todo: "refer to a JSON Schema file", Err: err}
	}
	return doc, nil
}
