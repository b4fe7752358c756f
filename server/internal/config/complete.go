package config

import (
	"sort"
	"strings"
)

// CompletionKind sorts what config.toml completion offers.
type CompletionKind int

// Kinds of completions.
const (
	CompleteKey CompletionKind = iota
	CompleteTable
	CompleteValue
)

// Completion is one thing the editor may offer at a place of config
// text: Text replaces the bytes of Replace. Snippet says Text is an LSP
// snippet ($1 for the cursor, ${1|a,b|} for a choice of values).
type Completion struct {
	Label   string
	Kind    CompletionKind
	Detail  string
	Doc     string
	Replace Span
	Text    string
	Snippet bool
	// Filter is what the typed text is matched against ("" for Label).
	Filter string
}

// ModelKeys are the keys whose value names a model of the model server.
var ModelKeys = map[string]bool{"model.name": true, "test.judge": true}

// Complete lists what fits at offset of config text: on a header line
// the tables not there yet; on a key line, the keys of the table the
// offset is in that are not set there yet, each inserting its `=` and a
// value to fill (a choice of the allowed ones, with the closing quote);
// after `key =`, the key's values: the allowed ones of an enumerated key,
// true and false, or for a key naming a model the models the server has
// (models, nil when unknown).
func Complete(src []byte, offset int, models []string) []Completion {
	offset = max(0, min(offset, len(src)))
	lineStart := strings.LastIndexByte(string(src[:offset]), '\n') + 1
	prefix := string(src[lineStart:offset])
	trim := strings.TrimLeft(prefix, " \t")
	lead := lineStart + len(prefix) - len(trim)
	if strings.HasPrefix(trim, "[") {
		return tables(src, Span{lead, lineEnd(src, offset)})
	}
	e, onLine, table := EntryAt(src, offset)
	if onLine && !e.Header && offset >= e.Value.Start {
		return values(e, offset, models)
	}
	if strings.Contains(trim, "=") {
		return nil
	}
	set := keysSet(src, offset)
	var out []Completion
	for _, k := range KeysOf(table) {
		if set[k.Name] || k.Type == "table" && k.Table == "" {
			continue
		}
		if _, own := Tables[k.Path()]; own {
			continue // written as its own table: [[model.servers]]
		}
		text, snippet := keyInsert(k, models)
		detail := k.Type
		if k.Default != "" {
			detail += ", default " + k.Default
		}
		out = append(out, Completion{Label: k.Name, Kind: CompleteKey, Detail: detail, Doc: k.Doc,
			Replace: Span{lead, offset}, Text: text, Snippet: snippet})
	}
	return out
}

// keyInsert is what choosing a key writes: `gate = "${1|explicit,rerun|}"`,
// `think = ${1|true,false|}`, `timeout = "$1"`, `parallel = ${1:1}`.
func keyInsert(k Key, models []string) (string, bool) {
	head := k.Name + " = "
	choices := k.Values
	if ModelKeys[k.Path()] {
		choices = models
	}
	switch {
	case k.Type == "boolean":
		return head + "${1|true,false|}", true
	case len(choices) > 0:
		esc := make([]string, len(choices))
		for i, c := range choices {
			esc[i] = snippetChoice(c)
		}
		return head + `"${1|` + strings.Join(esc, ",") + `|}"`, true
	case k.Type == "string" || k.Type == "duration" || k.Type == "size":
		return head + `"$1"`, true
	case k.Type == "array":
		return head + "[$1]", true
	case k.Type == "integer" || k.Type == "float":
		if d := k.Default; d != "" && !strings.ContainsAny(d, `"$}\`) {
			return head + "${1:" + d + "}", true
		}
		return head + "$1", true
	}
	return head, false
}

// snippetChoice escapes a value for a snippet's ${1|...|} choice.
func snippetChoice(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `,`, `\,`, `|`, `\|`, `$`, `\$`, `}`, `\}`)
	return r.Replace(s)
}

// values completes the value of e's key at offset: the whole value is
// replaced, its closing quote included, so a choice never leaves one
// quote too many or too few.
func values(e Entry, offset int, models []string) []Completion {
	k, ok := Lookup(e.Path)
	if !ok {
		return nil
	}
	rng := Span{e.Value.Start, max(e.Value.End, offset)}
	var vals []string
	detail := ""
	switch {
	case ModelKeys[e.Path]:
		vals, detail = models, "installed on the model server"
	case len(k.Values) > 0:
		vals = k.Values
	case k.Type == "boolean":
		return []Completion{
			{Label: "true", Kind: CompleteValue, Replace: rng, Text: "true"},
			{Label: "false", Kind: CompleteValue, Replace: rng, Text: "false"},
		}
	}
	out := make([]Completion, 0, len(vals))
	for _, v := range vals {
		quoted := `"` + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`) + `"`
		out = append(out, Completion{Label: v, Kind: CompleteValue, Detail: detail, Replace: rng, Text: quoted, Filter: quoted})
	}
	return out
}

// keysSet lists the keys already set in the table offset sits in (the
// one instance of an array of tables), the line at offset left out.
func keysSet(src []byte, offset int) map[string]bool {
	lineStart := strings.LastIndexByte(string(src[:offset]), '\n') + 1
	set := map[string]bool{}
	for _, e := range Entries(src) {
		switch {
		case e.Header && e.Key.Start < lineStart:
			set = map[string]bool{} // a section before offset's: start again
		case e.Header:
			return set // the section of offset ended
		case e.Key.Start >= lineStart && e.Key.Start <= lineEnd(src, offset):
			// the line being written
		default:
			set[strings.TrimPrefix(e.Path, e.Table+".")] = true
		}
	}
	return set
}

// tables lists the tables a header line may open: the ones not there yet,
// an array of tables and a new MCP server always.
func tables(src []byte, rng Span) []Completion {
	have := map[string]bool{}
	for _, e := range Entries(src) {
		if e.Header {
			have[e.Table] = true
		}
	}
	names := make([]string, 0, len(Tables))
	for t := range Tables {
		names = append(names, t)
	}
	sort.Strings(names)
	var out []Completion
	for _, t := range names {
		label := "[" + t + "]"
		switch t {
		case "model.servers":
			label = "[[model.servers]]"
		case "mcp.servers.*":
			label = "[mcp.servers.NAME]"
		default:
			if have[t] {
				continue
			}
		}
		text := label
		snippet := false
		if t == "mcp.servers.*" {
			text, snippet = "[mcp.servers.${1:name}]", true
		}
		out = append(out, Completion{Label: label, Kind: CompleteTable, Doc: Tables[t], Replace: rng, Text: text, Snippet: snippet})
	}
	return out
}

// lineEnd is where the line holding offset ends (before its line break).
func lineEnd(src []byte, offset int) int {
	if i := strings.IndexByte(string(src[offset:]), '\n'); i >= 0 {
		end := offset + i
		if end > offset && src[end-1] == '\r' {
			end--
		}
		return end
	}
	return len(src)
}
