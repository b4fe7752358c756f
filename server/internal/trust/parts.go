// Package trust decides whether icm may act for a workspace. Reading a
// workspace (its contracts, its config, its outputs) is always allowed;
// acting for it is not until its person says so: starting a command it
// names (a tool server, a Script stage, a `run:` check of a contract or
// of a stage test case), contacting a server it names (a model server, a
// tool server's URL, a search address in a server's arguments, a model
// registry), reading an environment variable it names (an API key),
// letting its stages' models read beyond what their contracts name.
// Parts lists exactly those, as written, each command with the files it
// runs pinned by their content; a Store keeps a person's grant of them
// in the user's config folder, keyed by the workspace's real path, with
// the parts themselves, so a later change says what changed (as direnv
// does); Decide puts the two together. A workspace that names nothing
// needs no trust.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
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
	// CaseCheck is a `run:` expectation of a stage test case: `icm test`
	// and the editor's Test Explorer run it.
	CaseCheck Kind = "test-check"
	// Pull is a model name on a registry other than Ollama's own: a pull
	// of it makes the person's Ollama contact that registry.
	Pull Kind = "pull"
	// Server is an address contacted: a model server, an HTTP tool
	// server, an address a tool server's arguments or environment name.
	Server Kind = "server"
	// Key is an environment variable read for a secret, with where it
	// goes.
	Key Kind = "key"
	// ReadsWorkspace is config.toml asking that the stages' models may read any
	// file of the workspace, not only those their contracts name: a
	// workspace cannot widen its own reads.
	ReadsWorkspace Kind = "reads-workspace"
)

// ReadsValue is the value of a ReadsWorkspace part.
const ReadsValue = "any file of the workspace"

// kindInfo is what icm says of each kind, in the parts' order: what runs
// first, then what is pulled or contacted, then what is read. A new kind
// is a row here (and a part of it in trusttest's hostile workspace:
// TestTheHostileWorkspaceNamesEveryKind fails until it names one).
var kindInfo = []struct {
	kind      Kind
	verb      string
	one, many string
}{
	{Command, "run", "tool server command", "tool server commands"},
	{Script, "run", "Script stage", "Script stages"},
	{Check, "run", "run: check", "run: checks"},
	{CaseCheck, "run", "test case run: check", "test case run: checks"},
	{Pull, "pull", "model from another registry", "models from other registries"},
	{Server, "contact", "server address", "server addresses"},
	{Key, "read", "key variable", "key variables"},
	{ReadsWorkspace, "let the stages' models read", "whole-workspace read", "whole-workspace reads"},
}

// order is the kind's place in the parts' order (unknown kinds last).
func (k Kind) order() int {
	for i, ki := range kindInfo {
		if ki.kind == k {
			return i
		}
	}
	return len(kindInfo)
}

// Verb is what icm would do with a part, for a person: run, pull,
// contact, read.
func (k Kind) Verb() string {
	if i := k.order(); i < len(kindInfo) {
		return kindInfo[i].verb
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
	// Value is what would run, be pulled, be contacted or be read, as
	// written (placeholders with a value filled in).
	Value string `json:"value"`
	// Pins say, for a command, how each program and file it names is
	// held to what the person trusted: by its content, by its name, or
	// not at all (and why).
	Pins []Pin `json:"pins,omitempty"`
}

// String is the part in one line: "run sh -c make (pipeline/02-build/CONTEXT.md ## Script)".
func (p Part) String() string {
	return fmt.Sprintf("%s %s (%s)", p.Kind.Verb(), p.Value, p.Where)
}

// at identifies the command or address a part names, pins aside.
func (p Part) at() string { return string(p.Kind) + "\x00" + p.Where + "\x00" + p.Value }

// sameAt reports whether two parts name the same command or address at
// the same place.
func (p Part) sameAt(q Part) bool {
	return p.Kind == q.Kind && p.Where == q.Where && p.Value == q.Value
}

// equal reports whether two parts are the same, pins included.
func (p Part) equal(q Part) bool { return p.sameAt(q) && slices.Equal(p.Pins, q.Pins) }

// Parts is what a workspace names, sorted.
type Parts []Part

// sorted returns the parts in their one order, without duplicates.
func (ps Parts) sorted() Parts {
	out := append(Parts(nil), ps...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind != b.Kind {
			return a.Kind.order() < b.Kind.order()
		}
		if a.Where != b.Where {
			return a.Where < b.Where
		}
		return a.Value < b.Value
	})
	uniq := out[:0]
	for _, p := range out {
		// Equal parts are next to each other, among those at the same place.
		dup := false
		for i := len(uniq) - 1; i >= 0 && uniq[i].sameAt(p); i-- {
			if uniq[i].equal(p) {
				dup = true
				break
			}
		}
		if !dup {
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

// Names reports whether a part of the kind has the value (a model to
// pull, say): what an operation about to act asks before it does.
func (ps Parts) Names(kind Kind, value string) bool {
	for _, p := range ps {
		if p.Kind == kind && p.Value == value {
			return true
		}
	}
	return false
}

// Pinned reports whether a part pins the file rel (relative to the
// workspace, as Pin.File names it): a change to it may change the
// decision.
func (ps Parts) Pinned(rel string) bool {
	for _, p := range ps {
		for _, pin := range p.Pins {
			if pin.File == rel && (pin.How == Content || pin.How == TooLarge) {
				return true
			}
		}
	}
	return false
}

// Count says how many parts of each kind, in words: "2 commands, 1
// server and 1 key variable".
func (ps Parts) Count() string {
	n := map[Kind]int{}
	for _, p := range ps {
		n[p.Kind]++
	}
	var words []string
	for _, ki := range kindInfo {
		switch c := n[ki.kind]; {
		case c == 1:
			words = append(words, "1 "+ki.one)
		case c > 1:
			words = append(words, fmt.Sprintf("%d %s", c, ki.many))
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
