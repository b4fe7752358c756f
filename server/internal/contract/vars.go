package contract

import (
	"bytes"
	"regexp"
	"strings"
)

// The ICM template's placeholder syntax (its _core/placeholder-syntax.md):
// `{{NAME}}` is a setup-time variable, filled once when a person sets the
// workspace up, and `{{?NAME}}` … `{{/NAME}}` on lines of their own wrap
// an optional block (whole sections) that setup keeps or removes. icm
// reads the values from [vars] in config.toml. Run-time placeholders
// (`[slug]`, `{slug}`, `<id>`) are names the model or an earlier stage
// fills; they are not variables.

// Vars are a workspace's setup-time variables: name -> value.
type Vars map[string]string

// setupVar matches a setup-time variable, `{{SCREAMING_SNAKE_CASE}}`.
var setupVar = regexp.MustCompile(`\{\{\s*([A-Z][A-Z0-9_]*)\s*\}\}`)

// blockMarker matches an optional block's opening or closing marker on a
// line of its own.
var blockMarker = regexp.MustCompile(`(?m)^[ \t]*\{\{([?/])\s*([A-Z][A-Z0-9_]*)\s*\}\}[ \t]*\r?$`)

// SetupVarNames returns the setup-time variables s names, in order, each
// once.
func SetupVarNames(s string) []string {
	if !strings.Contains(s, "{{") {
		return nil
	}
	var out []string
	for _, m := range setupVar.FindAllStringSubmatch(s, -1) {
		if !containsString(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// Expand fills the setup-time variables of s that have a value and
// returns the text with the names of those that have none, in order, each
// once (they stay as written).
func (v Vars) Expand(s string) (string, []string) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	var unset []string
	out := setupVar.ReplaceAllStringFunc(s, func(m string) string {
		name := setupVar.FindStringSubmatch(m)[1]
		if val, ok := v[name]; ok {
			return val
		}
		if !containsString(unset, name) {
			unset = append(unset, name)
		}
		return m
	})
	return out, unset
}

// Keeps reports whether an optional block named name is kept: when the
// variable is unset (the workspace as it ships, before setup) or set to
// anything but an empty or negative value.
func (v Vars) Keeps(name string) bool {
	val, ok := v[name]
	if !ok {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(val)) {
	case "", "false", "no", "off", "0", "none":
		return false
	}
	return true
}

// Block is one optional block of a text.
type Block struct {
	Name string
	// Start and End cover the block, markers included.
	Start, End int
	// Kept says the block's content stays (see Vars.Keeps).
	Kept bool
}

// Blocks applies the optional blocks of src: a kept block's markers are
// blanked, a dropped block is blanked whole. Blanking replaces every byte
// but line ends with a space, so offsets and line numbers stay those of
// src. A marker with no partner is left as it is. src itself is not
// changed; the blocks found are returned in order of their start.
func (v Vars) Blocks(src []byte) ([]byte, []Block) {
	if !bytes.Contains(src, []byte("{{?")) {
		return src, nil
	}
	ms := blockMarker.FindAllSubmatchIndex(src, -1)
	if len(ms) == 0 {
		return src, nil
	}
	out := append([]byte(nil), src...)
	type open struct {
		name       string
		start, end int // the opening marker's line
	}
	var stack []open
	var blocks []Block
	for _, m := range ms {
		kind, name := string(src[m[2]:m[3]]), string(src[m[4]:m[5]])
		if kind == "?" {
			stack = append(stack, open{name, m[0], m[1]})
			continue
		}
		i := len(stack) - 1
		for i >= 0 && stack[i].name != name {
			i--
		}
		if i < 0 {
			continue // a closing marker with no opening one
		}
		o := stack[i]
		stack = stack[:i]
		b := Block{Name: name, Start: o.start, End: m[1], Kept: v.Keeps(name)}
		if b.Kept {
			blank(out[o.start:o.end])
			blank(out[m[0]:m[1]])
		} else {
			blank(out[b.Start:b.End])
		}
		blocks = append(blocks, b)
	}
	sortBlocks(blocks)
	return out, blocks
}

// ApplyText applies optional blocks and fills variables in the text of a
// file that is sent to the model, and returns the names left unset. Only
// a text holding "{{" is touched.
func (v Vars) ApplyText(text string) (string, []string) {
	if !strings.Contains(text, "{{") {
		return text, nil
	}
	b, _ := v.Blocks([]byte(text))
	return v.Expand(dropBlankLines(string(b), text))
}

// dropBlankLines removes the lines that blanking emptied (markers, dropped
// blocks) from text, where orig is the text before: so no marker leaves
// a run of spaces in what the model reads.
func dropBlankLines(text, orig string) string {
	if text == orig {
		return text
	}
	tl, ol := strings.Split(text, "\n"), strings.Split(orig, "\n")
	out := tl[:0]
	for i, l := range tl {
		if strings.TrimSpace(l) == "" && i < len(ol) && strings.TrimSpace(ol[i]) != "" {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func blank(b []byte) {
	for i, c := range b {
		if c != '\n' && c != '\r' {
			b[i] = ' '
		}
	}
}

func sortBlocks(bs []Block) {
	for i := 1; i < len(bs); i++ {
		for j := i; j > 0 && bs[j].Start < bs[j-1].Start; j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
