package config

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/icm-tool/icm/server/internal/suggest"
)

// Problem codes of Lint.
const (
	// ProblemSyntax: the text is not TOML, or a value has the wrong type.
	ProblemSyntax = "config-syntax"
	// ProblemUnknownKey: icm reads no such key (often a typo).
	ProblemUnknownKey = "config-unknown-key"
	// ProblemBadValue: the value is out of range or not one of the allowed ones.
	ProblemBadValue = "config-bad-value"
	// ProblemModelMissing: the model server has no model of that name.
	ProblemModelMissing = "config-model-missing"
	// ProblemBounds: the text is larger or nested deeper than icm reads
	// (Precheck).
	ProblemBounds = "config-bounds"
)

// Problem is one thing wrong in config.toml, with where it is.
type Problem struct {
	// Span is the bytes to underline: the key, or its value.
	Span Span
	Line int
	// Column is the 1-based column of Span's start, in characters.
	Column int
	// Error is set when icm cannot run with the file as it is; otherwise
	// the problem is a warning.
	Error   bool
	Code    string
	Key     string
	Message string
	// Suggestion is what was probably meant (a key name or a model), for
	// a quick fix; "" when nothing is close.
	Suggestion string
}

// LintOptions are what Lint knows besides the text.
type LintOptions struct {
	// Models are the model server's installed models; nil when unknown
	// (the server did not answer), which skips the model check.
	Models []string
	// Server names the model server in messages ("the Ollama server at ...").
	Server string
}

var decodeErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): (.*)$`)

// Lint checks config text the way icm will read it: TOML syntax and value
// types, keys icm does not read (with the key probably meant), values out
// of range, and a model the server does not have (with the installed one
// probably meant). Every problem is placed on the key or value it is about.
func Lint(data []byte, opts LintOptions) []Problem {
	var bounds *BoundsError
	if errors.As(Precheck("", data), &bounds) {
		end := bounds.Offset + 1
		if end > len(data) {
			end = len(data)
		}
		return []Problem{{Span: Span{bounds.Offset, end}, Line: bounds.Line, Error: true, Code: ProblemBounds, Message: bounds.Msg}}
	}
	entries := indexEntries(Entries(data))
	var out []Problem
	cfg := Defaults()
	md, err := toml.Decode(string(data), &cfg)
	if err != nil {
		return []Problem{syntaxProblem(data, entries, err)}
	}
	out = append(out, unknownKeys(entries, md)...)
	out = append(out, badValues(entries, &cfg)...)
	if opts.Models != nil && cfg.Model.Name != "" {
		if p, ok := missingModel(entries, cfg.Model.Name, opts); ok {
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Span.Start < out[j].Span.Start })
	return out
}

// syntaxProblem places a parse or type error.
func syntaxProblem(data []byte, entries entryIndex, err error) Problem {
	p := Problem{Error: true, Code: ProblemSyntax, Message: strings.TrimPrefix(err.Error(), "toml: ")}
	var perr toml.ParseError
	// The decoder reports a value it cannot use as a ParseError too, with
	// the value's key; only text that is not TOML at all fails a decode
	// into a plain map, and for it the last key read says nothing of where
	// the parser stopped.
	var plain map[string]any
	isParse := errors.As(err, &perr) && toml.Unmarshal(data, &plain) != nil
	if errors.As(err, &perr) {
		p.Line = perr.Position.Line
		p.Message = perr.Message
		p.Key = perr.LastKey
		p.Span = Span{perr.Position.Start, perr.Position.Start + max(perr.Position.Len, 1)}
	} else if m := decodeErr.FindStringSubmatch(err.Error()); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		p.Key, p.Message = m[2], m[3]
		p.Message = strings.Replace(p.Message, "incompatible types: TOML value has type", "the value is a", 1)
		if i := strings.Index(p.Message, "; destination has type "); i >= 0 {
			want := p.Message[i+len("; destination has type "):]
			p.Message = p.Message[:i] + ", but icm reads " + withArticle(want)
		}
	}
	// A parse error's last key is the last one read before the error, not
	// the one it is about: only a value's type error is placed on its key.
	if e, ok := entries.find(p.Key); ok && p.Key != "" && !isParse {
		p.Span, p.Line = e.Value, e.Line
		if k, ok := Lookup(p.Key); ok {
			p.Message = fmt.Sprintf("%s: %s", p.Key, p.Message)
			if !strings.Contains(p.Message, k.Type) {
				p.Message += fmt.Sprintf(" (%s)", withArticle(k.Type))
			}
		}
	}
	if p.Span.End > len(data) {
		p.Span = Span{len(data), len(data)}
	}
	if p.Span.End > 0 {
		// The line of what is underlined: the parser counts a line it
		// stopped at the end of (a newline) as the next one.
		p.Line = 1 + bytes.Count(data[:p.Span.Start], []byte("\n"))
	}
	p.Column = columnOf(data, p.Span.Start)
	return p
}

// columnOf is the 1-based column, in characters, of offset in data.
func columnOf(data []byte, offset int) int {
	offset = min(max(offset, 0), len(data))
	start := bytes.LastIndexByte(data[:offset], '\n') + 1
	return 1 + utf8.RuneCount(data[start:offset])
}

// unknownKeys reports the keys the decoder did not use, each at its key,
// with the known key of that table it is closest to.
func unknownKeys(entries entryIndex, md toml.MetaData) []Problem {
	var out []Problem
	unknown := map[string]bool{}
	for _, k := range md.Undecoded() {
		unknown[k.String()] = true
	}
	for path := range unknown {
		// Report an unknown table once, not each key in it.
		if i := strings.LastIndexByte(path, '.'); i >= 0 && unknown[path[:i]] {
			continue
		}
		table, _ := splitPath(path)
		p := Problem{Code: ProblemUnknownKey, Key: path, Message: fmt.Sprintf("icm does not read %q", path)}
		names := tableKeys(table)
		p.Suggestion = nearKey(path)
		if p.Suggestion != "" {
			p.Message += fmt.Sprintf(", so the setting is not applied: did you mean %q?", p.Suggestion)
		} else if len(names) > 0 {
			p.Message += fmt.Sprintf(" (a typo? %s keys are: %s)", tableLabel(table), strings.Join(names, ", "))
		}
		if e, ok := entries.find(path); ok {
			p.Span, p.Line = e.Key, e.Line
		}
		out = append(out, p)
	}
	return out
}

func tableLabel(table string) string {
	if table == "" {
		return "the top-level"
	}
	return "[" + table + "]"
}

// badValues places the problems of Config.Problems, the one validation
// of settings: on the value, or for a table-wide one on its header.
func badValues(entries entryIndex, c *Config) []Problem {
	var out []Problem
	for _, v := range c.Problems() {
		p := Problem{Code: ProblemBadValue, Key: v.Key, Message: v.Message, Error: !v.Warning, Suggestion: v.Suggestion}
		if e, ok := entries.find(v.Key); ok {
			p.Span, p.Line = e.Value, e.Line
			if v.Header {
				p.Span = e.Key
			}
		}
		out = append(out, p)
	}
	return out
}

// missingModel reports a [model] name the server lacks.
func missingModel(entries entryIndex, name string, opts LintOptions) (Problem, bool) {
	s := suggest.Model(name, opts.Models)
	for _, m := range opts.Models {
		if strings.EqualFold(m, name) || strings.EqualFold(m, name+":latest") {
			return Problem{}, false
		}
	}
	server := opts.Server
	if server == "" {
		server = "the model server"
	}
	p := Problem{Code: ProblemModelMissing, Key: "model.name", Suggestion: s,
		Message: fmt.Sprintf("model %q is not installed on %s", name, server)}
	switch {
	case s != "":
		p.Message += fmt.Sprintf(": did you mean %q?", s)
	case len(opts.Models) == 0:
		p.Message += fmt.Sprintf(": it has no models yet (`ollama pull %s`)", name)
	default:
		p.Message += fmt.Sprintf(" (`ollama pull %s`); it has: %s", name, strings.Join(opts.Models, ", "))
	}
	if e, ok := entries.find("model.name"); ok {
		p.Span, p.Line = e.Value, e.Line
	}
	return p, true
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, " or ")
}

// withArticle puts "a" or "an" before a type's name, as English reads it
// ("an integer", "a string").
func withArticle(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
