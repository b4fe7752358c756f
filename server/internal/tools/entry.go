package tools

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// entry is a server definition as written, before expansion and checks.
type entry struct {
	server Server
	// typ is the written "type" ("" when absent).
	typ string
	// lines maps a field name to its line, for problems about that field.
	lines map[string]int
}

var serverName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// finish expands variables and checks the entry. ok is false when the
// server cannot be used; the problems say why.
func (e entry) finish(exp expander) (s Server, problems []Problem, ok bool) {
	s = e.server
	written := e.server
	s.Written = &written
	failed := false
	report := func(field string, sev Severity, msg string) {
		line := s.Line
		if l, found := e.lines[field]; found && l > 0 {
			line = l
		}
		problems = append(problems, Problem{File: s.Source, Line: line, Server: s.Name, Severity: sev,
			Message: fmt.Sprintf("server %q: %s", s.Name, msg)})
		if sev == SeverityError {
			failed = true
		}
	}
	expand := func(field, v string) string {
		out, issues := exp.expand(v)
		for _, is := range issues {
			report(field, is.severity, field+": "+is.message)
		}
		return out
	}

	if !serverName.MatchString(s.Name) {
		report("", SeverityWarning, "the name should use only letters, digits, '-', '_' and '.', or stage contracts cannot name it cleanly")
	}
	s.Command = expand("command", s.Command)
	if s.Args != nil {
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = expand("args", a)
		}
		s.Args = args
	}
	s.Env = expandMap(s.Env, "env", expand)
	s.Headers = expandMap(s.Headers, "headers", expand)
	s.URL = expand("url", s.URL)
	s.Dir = expand("cwd", s.Dir)

	switch e.typ {
	case "":
		if s.URL != "" {
			s.Transport = TransportHTTP
		} else {
			s.Transport = TransportStdio
		}
	case "stdio":
		s.Transport = TransportStdio
	case "http", "streamable-http", "streamableHttp", "streamable_http":
		s.Transport = TransportHTTP
	case "sse":
		s.Transport = TransportSSE
	default:
		report("type", SeverityError, fmt.Sprintf("type %q is not one of stdio, http, sse", e.typ))
	}
	switch {
	case s.Command != "" && s.URL != "":
		report("", SeverityError, "has both command and url: keep command for a local (stdio) server or url for a remote (HTTP) one")
	case s.Command == "" && s.URL == "":
		report("", SeverityError, "needs a command (stdio) or a url (HTTP)")
	case s.Transport == TransportStdio && s.Command == "" && e.typ != "":
		report("type", SeverityError, "type stdio needs a command")
	case s.Transport != TransportStdio && s.URL == "" && e.typ != "":
		report("type", SeverityError, fmt.Sprintf("type %s needs a url", e.typ))
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		switch {
		case err != nil:
			report("url", SeverityError, fmt.Sprintf("url %q: %v", s.URL, err))
		case u.Scheme != "http" && u.Scheme != "https":
			report("url", SeverityError, fmt.Sprintf("url %q: only http and https URLs are supported", s.URL))
		case u.Host == "":
			report("url", SeverityError, fmt.Sprintf("url %q has no host", s.URL))
		}
	}
	for k := range s.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			report("env", SeverityError, fmt.Sprintf("env name %q is not valid", k))
		}
	}
	return s, problems, !failed
}

func expandMap(m map[string]string, field string, expand func(field, v string) string) map[string]string {
	if m == nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // problems in a stable order
	out := make(map[string]string, len(m))
	for _, k := range keys {
		out[k] = expand(field, m[k])
	}
	return out
}
