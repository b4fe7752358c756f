package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
)

// Transports a server can be reached over.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http" // streamable HTTP
	TransportSSE   = "sse"  // the older HTTP+SSE transport
)

// Server is one configured MCP server, with every variable expanded.
type Server struct {
	Name string
	// Transport is TransportStdio, TransportHTTP or TransportSSE.
	Transport string
	Command   string
	Args      []string
	// Env is added to the child's minimal environment.
	Env map[string]string
	// Dir is the child's working directory ("" = the toolset's default).
	Dir     string
	URL     string
	Headers map[string]string
	// Source is the file the entry came from and Line its line there (0 if unknown).
	Source string
	Line   int
	// Written is the entry as the workspace writes it, before its
	// variables are expanded (and before `icm` is pointed at this
	// binary): what its person trusted, and so what the permit is told
	// as the server starts or is contacted. nil for a server built in
	// code, which is told as it is.
	Written *Server
}

// named is the server as the workspace writes it.
func (s Server) named() Server {
	if s.Written != nil {
		return *s.Written
	}
	return s
}

// Location is "file:line" (or just the file) for messages.
func (s Server) Location() string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.Source, s.Line)
	}
	return s.Source
}

// Key identifies what the server runs, so two identical entries share a
// cache slot and a changed entry gets a new one.
func (s Server) Key() string {
	// json.Marshal sorts map keys, so the encoding is deterministic.
	b, _ := json.Marshal(struct {
		T, C, D, U string
		A          []string
		E, H       map[string]string
	}{s.Transport, s.Command, s.Dir, s.URL, s.Args, s.Env, s.Headers})
	sum := sha256.Sum256(b)
	return s.Name + "@" + hex.EncodeToString(sum[:12])
}

// Registry is every configured server by name.
type Registry map[string]Server

// Names lists the servers in sorted order.
func (r Registry) Names() []string {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Severity of a configuration problem.
type Severity string

// Severities: an error leaves the server out, a warning keeps it, a note
// only informs (for example that another file's entry is shadowed).
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityNote    Severity = "note"
)

// Problem is something wrong or ignored in a server configuration file.
type Problem struct {
	File     string
	Line     int // 1-based; 0 when unknown
	Col      int // 1-based; 0 when unknown
	Server   string
	Severity Severity
	Message  string
}

// String renders "file:line:col: severity: message".
func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, p.Line)
		if p.Col > 0 {
			loc = fmt.Sprintf("%s:%d", loc, p.Col)
		}
	}
	return fmt.Sprintf("%s: %s: %s", loc, p.Severity, p.Message)
}
