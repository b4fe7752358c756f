package state

import (
	"fmt"
	"strings"
)

// Writes is what a run of a stage whose model names its files wrote,
// against what the contract declares: the outputs it did not write, the
// files it wrote into output/ without a declaration (a contract that
// names none), and the changes it proposes to files outside output/. The
// gate shows them; a later stage's reading and the approval act on them.
type Writes struct {
	// Declared counts the files the contract names (in output/ and
	// outside it); 0 when it names none.
	Declared int `json:"declared"`
	// Missing are the declared outputs no file was written for, as the
	// contract names them ("output/risks.md"): a partial answer, kept.
	Missing []string `json:"missing,omitempty"`
	// Undeclared are the files written into output/ of a contract that
	// names none, workspace-relative.
	Undeclared []string `json:"undeclared,omitempty"`
	// Proposals are the changes to files outside output/, kept with the
	// run and applied only when a person approves.
	Proposals []Proposal `json:"proposals,omitempty"`
}

// Proposal is one change a run proposes to a file outside its stage's
// output/ folder.
type Proposal struct {
	// Target is the file it changes, workspace-relative.
	Target string `json:"target"`
	// Named is the path as the model wrote it, from the stage folder.
	Named string `json:"named,omitempty"`
	// Base is the hash of Target when the run ended (Missing for a file
	// that was not there): approval applies the change only onto it.
	Base string `json:"base"`
	// Hash is the hash of the proposed content.
	Hash string `json:"hash"`
	// Kept is the proposed content's copy, workspace-relative, in the
	// stage's state folder.
	Kept string `json:"kept"`
}

// Partial reports whether the run wrote only part of the declared outputs.
func (w *Writes) Partial() bool { return w != nil && len(w.Missing) > 0 }

// MissingLine says how much of the declared outputs a partial run wrote:
// "2 of 3 outputs written; still missing: output/risks.md"; "" when none
// is missing.
func (w *Writes) MissingLine() string {
	if !w.Partial() {
		return ""
	}
	return fmt.Sprintf("%d of %d outputs written; still missing: %s", w.Declared-len(w.Missing), w.Declared, strings.Join(w.Missing, ", "))
}
