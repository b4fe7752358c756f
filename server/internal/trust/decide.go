package trust

import (
	"fmt"
	"strings"
)

// InheritEnv carries a trusted run's trust to the icm processes it starts
// itself (a Script stage's icm subcommands, icm's own tool servers): the
// hash of the parts it was trusted for. A child that computes the same
// parts is trusted; any other value is ignored.
const InheritEnv = "ICM_TRUSTED"

// State is a workspace's trust, as the wire and the CLI name it.
type State string

// States.
const (
	// NotNeeded: the workspace names nothing to run, contact or read
	// (and Restricted Mode is off).
	NotNeeded State = "not-needed"
	// Trusted: a grant covers everything it names (or --trust, or the run
	// that started this process).
	Trusted State = "trusted"
	// Untrusted: nobody granted it, or its record cannot be read.
	Untrusted State = "untrusted"
	// Changed: a grant exists but the workspace names something it did
	// not cover.
	Changed State = "changed"
	// Restricted: the editor's Restricted Mode is on; whatever icm's
	// record says and whatever the workspace names, it is read-only.
	Restricted State = "restricted"
)

// Inputs are what a decision reads besides the workspace's parts.
type Inputs struct {
	Store Store
	// StoreErr is why there is no store (no config folder): the workspace
	// is then untrusted, with that note.
	StoreErr error
	// Explicit trusts the workspace for this process (the --trust flag, for
	// CI): nothing is read or written.
	Explicit bool
	// Inherited is InheritEnv's value in this process's environment.
	Inherited string
	// Restricted is the editor's Restricted Mode: it lowers trust and
	// never raises it.
	Restricted bool
}

// Decision is whether icm may act for a workspace, and why.
type Decision struct {
	// Root is the workspace's real path.
	Root  string `json:"root"`
	State State  `json:"state"`
	// Parts are what the workspace names now.
	Parts Parts `json:"parts"`
	// Hash is Parts' hash: what a grant of these parts pins.
	Hash string `json:"hash"`
	// Record is the person's grant, when there is a readable one.
	Record *Record `json:"record,omitempty"`
	// Changes are the parts the grant does not cover (State Changed).
	Changes []Change `json:"changes,omitempty"`
	// By says what trusts it: "icm trust on 2026-12-01", "--trust".
	By string `json:"by,omitempty"`
	// Note is a problem with the record or the config folder.
	Note string `json:"note,omitempty"`
}

// Decide puts a workspace's parts and its person's grant together. The
// editor's Restricted Mode comes first: it makes every workspace
// read-only, whatever it names. Otherwise a workspace that names nothing
// needs no trust; one that does is trusted when --trust says so, when the
// run that started this process was trusted for the same parts, or when
// a record covers every part.
func Decide(root string, parts Parts, in Inputs) Decision {
	parts = parts.sorted()
	d := Decision{Root: RealPath(root), Parts: parts, Hash: parts.Hash()}
	if in.Restricted {
		d.State = Restricted
		return d
	}
	if len(parts) == 0 {
		d.State = NotNeeded
		return d
	}
	if in.Explicit {
		d.State, d.By = Trusted, "--trust"
		return d
	}
	if in.Inherited != "" && in.Inherited == d.Hash {
		d.State, d.By = Trusted, "the icm run that started this process"
		return d
	}
	d.State = Untrusted
	if in.StoreErr != nil {
		d.Note = in.StoreErr.Error()
		return d
	}
	rec, err := in.Store.Load(d.Root)
	if err != nil {
		d.Note = err.Error()
		return d
	}
	if rec == nil {
		return d
	}
	d.Record = rec
	if d.Changes = Uncovered(rec.Parts, parts); len(d.Changes) > 0 {
		d.State = Changed
		return d
	}
	d.State = Trusted
	d.By = fmt.Sprintf("%s on %s", rec.By, rec.Time.Local().Format("2006-01-02 15:04"))
	return d
}

// Needed reports whether the workspace names anything trust covers (a
// workspace held read-only by Restricted Mode may name nothing).
func (d Decision) Needed() bool { return d.State != NotNeeded && d.State != "" && len(d.Parts) > 0 }

// Allowed reports whether icm may act for the workspace: start what it
// names, contact what it names, read what it names.
func (d Decision) Allowed() bool { return d.State == NotNeeded || d.State == Trusted }

// Summary says the decision in one line for a person: "trusted (icm
// trust on 2026-12-01 10:00)", "not trusted: it names 2 tool server
// commands and 1 server address".
func (d Decision) Summary() string {
	switch d.State {
	case NotNeeded:
		return "needs no trust: it names nothing to run, contact or read"
	case Trusted:
		return fmt.Sprintf("trusted (%s): %s", d.By, d.Parts.Count())
	case Restricted:
		return fmt.Sprintf("not trusted: the editor is in Restricted Mode; it names %s", d.Parts.Count())
	case Changed:
		what := make([]string, 0, len(d.Changes))
		for _, c := range d.Changes {
			what = append(what, c.String())
		}
		return "not trusted: changed since it was trusted: " + strings.Join(what, "; ")
	}
	s := "not trusted: it names " + d.Parts.Count()
	if d.Note != "" {
		s += " (" + d.Note + ")"
	}
	return s
}
