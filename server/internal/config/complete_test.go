package config

import (
	"strings"
	"testing"
)

// at splits a text at its "|" into the text and the offset there.
func at(marked string) ([]byte, int) {
	i := strings.IndexByte(marked, '|')
	return []byte(marked[:i] + marked[i+1:]), i
}

func labelsOf(cs []Completion) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Label)
	}
	return strings.Join(out, ",")
}

func find(cs []Completion, label string) (Completion, bool) {
	for _, c := range cs {
		if c.Label == label {
			return c, true
		}
	}
	return Completion{}, false
}

// apply writes a completion into the text, snippets as their first
// choice (as the editor shows them before a choice is made).
func apply(src []byte, c Completion) string {
	text := c.Text
	if c.Snippet {
		text = strings.NewReplacer("${1|", "", "|}", "", "$1", "", "${1:", "").Replace(text)
		if i := strings.IndexByte(text, ','); i >= 0 && strings.Contains(c.Text, "${1|") {
			j := strings.IndexAny(text[i:], `"`)
			if j < 0 {
				j = len(text) - i
			}
			text = text[:i] + text[i+j:]
		}
		text = strings.TrimSuffix(text, "}")
	}
	return string(src[:c.Replace.Start]) + text + string(src[c.Replace.End:])
}

// TestCompletionLeavesOutKeysAlreadySet: a table's keys that are there
// already are not offered again; the same key in another table is.
// Before, [workflow] offered gate while gate was set, whose choice was an
// immediate duplicate-key error.
func TestCompletionLeavesOutKeysAlreadySet(t *testing.T) {
	src, off := at("[model]\nname = \"x\"\n\n[workflow]\ngate = \"explicit\"\n|\n[test]\nparallel = 2\n")
	got := labelsOf(Complete(src, off, nil))
	if strings.Contains(","+got+",", ",gate,") {
		t.Errorf("gate offered again: %s", got)
	}
	if !strings.Contains(","+got+",", ",parallel,") {
		t.Errorf("[workflow] parallel (set only in [test]) not offered: %s", got)
	}
	// A key written as its own table is not a key of its parent: [model]
	// does not offer 'servers = [...]' beside [[model.servers]].
	src, off = at("[model]\n|\n")
	if got := labelsOf(Complete(src, off, nil)); strings.Contains(","+got+",", ",servers,") || !strings.Contains(got, "num_ctx") {
		t.Errorf("[model] keys: %s", got)
	}
	// Each [[model.servers]] table is its own.
	src, off = at("[[model.servers]]\nurl = \"a\"\n[[model.servers]]\n|\n")
	if got := labelsOf(Complete(src, off, nil)); !strings.Contains(got, "url") {
		t.Errorf("the second server's url not offered: %s", got)
	}
}

// TestChoosingAKeyWritesAWholeValue: a key inserts its `=` and a value to
// fill with both quotes: an enumerated key a choice of its values, a
// boolean true or false, the model a choice of the installed models.
// Before, gate inserted `gate = "` and nothing more.
func TestChoosingAKeyWritesAWholeValue(t *testing.T) {
	cases := []struct {
		marked, key, text, applied string
	}{
		{"[workflow]\n|\n", "gate", `gate = "${1|explicit,rerun|}"`, "[workflow]\ngate = \"explicit\"\n"},
		{"[model]\n|\n", "think", "think = ${1|true,false|}", "[model]\nthink = true\n"},
		{"[model]\n|\n", "name", `name = "${1|qwen3.5:9b,llama3.2:3b|}"`, "[model]\nname = \"qwen3.5:9b\"\n"},
		{"[model]\n|\n", "timeout", `timeout = "$1"`, "[model]\ntimeout = \"\"\n"},
		{"[workflow]\n|\n", "parallel", "parallel = ${1:1}", "[workflow]\nparallel = 1\n"},
		{"[test]\n|\n", "models", "models = [$1]", "[test]\nmodels = []\n"},
	}
	for _, c := range cases {
		src, off := at(c.marked)
		got, ok := find(Complete(src, off, []string{"qwen3.5:9b", "llama3.2:3b"}), c.key)
		if !ok || got.Text != c.text || !got.Snippet {
			t.Errorf("%s: %+v, want %q", c.key, got, c.text)
			continue
		}
		if a := apply(src, got); a != c.applied {
			t.Errorf("%s applied: %q, want %q", c.key, a, c.applied)
		}
	}
}

// TestValueCompletionReplacesTheWholeValue: inside `gate = "|"` (the
// editor closed the quote) a value replaces both quotes, leaving one
// pair; on a bare `think = |` booleans are offered.
func TestValueCompletionReplacesTheWholeValue(t *testing.T) {
	src, off := at("[workflow]\ngate = \"|\"\n")
	cs := Complete(src, off, nil)
	if labelsOf(cs) != "explicit,rerun" {
		t.Fatalf("values %s", labelsOf(cs))
	}
	if got := apply(src, cs[1]); got != "[workflow]\ngate = \"rerun\"\n" {
		t.Errorf("applied %q", got)
	}
	src, off = at("[model]\nthink = |\n")
	if got := labelsOf(Complete(src, off, nil)); got != "true,false" {
		t.Errorf("think values %s", got)
	}
	src, off = at("[model]\nname = \"qw|\"\n")
	cs = Complete(src, off, []string{"qwen3.5:9b"})
	if len(cs) != 1 || apply(src, cs[0]) != "[model]\nname = \"qwen3.5:9b\"\n" || cs[0].Detail != "installed on the model server" {
		t.Errorf("model values %+v", cs)
	}
}

// TestTablesNotThereYet: a header line offers the tables the file lacks,
// and always another MCP server or model server.
func TestTablesNotThereYet(t *testing.T) {
	src, off := at("[model]\nname = \"x\"\n[|]\n")
	got := labelsOf(Complete(src, off, nil))
	if strings.Contains(got, "[model]") || !strings.Contains(got, "[workflow]") || !strings.Contains(got, "[[model.servers]]") || !strings.Contains(got, "[mcp.servers.NAME]") {
		t.Errorf("tables %s", got)
	}
}
