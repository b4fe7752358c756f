// Package trust decides whether icm may act for a workspace. Reading a
// workspace (its contracts, its config, its outputs) is always allowed;
// acting for it is not until its person says so: starting a command it
// names (a tool server, a Script stage, a `run:` check), contacting a
// server it names (a model server, a tool server's URL, a search
// address in a server's arguments), reading an environment variable it
// names (an API key). Parts lists exactly those, as written; a Store
// keeps a person's grant of them in the user's config folder, keyed by
// the workspace's real path, with the parts themselves, so a later
// change says what changed (as direnv does); Decide puts the two
// together. A workspace that names nothing needs no trust.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Kind says what a part allows.
type Kind string

// Kinds of parts.
const (
	// Command is a tool server started as a process: its command line,
	// with the environment its entry sets.
	Command Kind = "command"
	// Script is a Script stage's command.
	Script Kind = "script"
	// Check is a `run:` Verify check's command.
	Check Kind = "check"
	// Server is an address contacted: a model server, an HTTP tool
	// server, an address a tool server's arguments or environment name.
	Server Kind = "server"
	// Key is an environment variable read for a secret, with where it
	// goes.
	Key Kind = "key"
)

// kindOrder sorts parts: what runs first, then what is contacted, then
// what is read.
var kindOrder = map[Kind]int{Command: 0, Script: 1, Check: 2, Server: 3, Key: 4}

// Verb is what icm would do with a part, for a person: run, contact, read.
func (k Kind) Verb() string {
	switch k {
	case Server:
		return "contact"
	case Key:
		return "read"
	}
	return "run"
}

// Part is one thing a workspace would be allowed.
type Part struct {
	Kind Kind `json:"kind"`
	// Where says where the workspace names it, relative to the
	// workspace: "config.toml [mcp.servers.search]",
	// "pipeline/02-build/CONTEXT.md ## Script".
	Where string `json:"where"`
	// Value is what would run, be contacted or be read, as written
	// (placeholders with a value filled in).
	Value string `json:"value"`
}

// String is the part in one line: "run sh -c make (pipeline/02-build/CONTEXT.md ## Script)".
func (p Part) String() string {
	return fmt.Sprintf("%s %s (%s)", p.Kind.Verb(), p.Value, p.Where)
}

// Parts is what a workspace names, sorted.
type Parts []Part

// sorted returns the parts in their one order, without duplicates.
func (ps Parts) sorted() Parts {
	out := append(Parts(nil), ps...)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if kindOrder[a.Kind] != kindOrder[b.Kind] {
			return kindOrder[a.Kind] < kindOrder[b.Kind]
		}
		if a.Where != b.Where {
			return a.Where < b.Where
		}
		return a.Value < b.Value
	})
	uniq := out[:0]
	for i, p := range out {
		if i == 0 || p != out[i-1] {
			uniq = append(uniq, p)
		}
	}
	return uniq
}

// Hash identifies the parts: equal parts, equal hash, whatever their order.
func (ps Parts) Hash() string {
	b, _ := json.Marshal(ps.sorted())
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Count says how many parts of each kind, in words: "2 commands, 1
// server and 1 key variable".
func (ps Parts) Count() string {
	n := map[Kind]int{}
	for _, p := range ps {
		n[p.Kind]++
	}
	names := []struct {
		k         Kind
		one, many string
	}{
		{Command, "tool server command", "tool server commands"},
		{Script, "Script stage", "Script stages"},
		{Check, "run: check", "run: checks"},
		{Server, "server address", "server addresses"},
		{Key, "key variable", "key variables"},
	}
	var words []string
	for _, nm := range names {
		switch c := n[nm.k]; {
		case c == 1:
			words = append(words, "1 "+nm.one)
		case c > 1:
			words = append(words, fmt.Sprintf("%d %s", c, nm.many))
		}
	}
	switch len(words) {
	case 0:
		return "nothing"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// Change is one part a workspace names now that its grant did not cover.
type Change struct {
	Part Part `json:"part"`
	// Was is the value the grant had at the same place ("" when the
	// place is new).
	Was string `json:"was,omitempty"`
}

// String says the change in one line.
func (c Change) String() string {
	if c.Was != "" {
		return fmt.Sprintf("%s changed: %s was %s, now %s", c.Part.Where, c.Part.Kind.Verb(), c.Was, c.Part.Value)
	}
	return fmt.Sprintf("new: %s %s (%s)", c.Part.Kind.Verb(), c.Part.Value, c.Part.Where)
}

// Uncovered lists the parts of now that granted does not hold, each with
// the value granted had at the same place when it had one. Parts granted
// holds that now lacks are no change that matters: a workspace that
// names less does less.
func Uncovered(granted, now Parts) []Change {
	have := map[Part]bool{}
	at := map[string][]string{}
	for _, p := range granted {
		have[p] = true
		k := string(p.Kind) + "\x00" + p.Where
		at[k] = append(at[k], p.Value)
	}
	used := map[string]int{}
	var out []Change
	for _, p := range now.sorted() {
		if have[p] {
			continue
		}
		c := Change{Part: p}
		k := string(p.Kind) + "\x00" + p.Where
		// Pair the new value with a granted one at the same place that
		// the workspace no longer names.
		for i := used[k]; i < len(at[k]); i++ {
			was := at[k][i]
			if !now.has(Part{Kind: p.Kind, Where: p.Where, Value: was}) {
				c.Was = was
				used[k] = i + 1
				break
			}
		}
		out = append(out, c)
	}
	return out
}

func (ps Parts) has(p Part) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}
