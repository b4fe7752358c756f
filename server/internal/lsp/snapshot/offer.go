package snapshot

import (
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
)

// What the answers offer a person to do: icm's commands (named here by
// what they do; the front end names them on its wire) and edits.

// Verb is what an offered command does.
type Verb int

// The commands the answers offer.
const (
	// VerbStatus shows the workspace's state.
	VerbStatus Verb = iota
	// VerbRunStage runs the stage; VerbRunAll runs every stage in order.
	VerbRunStage
	VerbRunAll
	// VerbApprove approves the stage's outputs.
	VerbApprove
	// VerbProbe shows the stage's assembled context (of an item, when
	// Target.Item is set).
	VerbProbe
	// VerbTest runs the stage's test cases.
	VerbTest
	// VerbTrust shows what trusting the workspace would allow.
	VerbTrust
	// VerbCompare diffs an output with the model's version of it, and
	// VerbRerunItem runs one For each item again with a person's note:
	// both are the editor's own, which call the server from there.
	VerbCompare
	VerbRerunItem
)

// Target is what an offered command acts on: always a workspace, and
// what else is set.
type Target struct {
	Workspace string
	Stage     string
	// Path is a file the command acts on (an output).
	Path string
	// Item is a For each item, from 1.
	Item int
	// Proposal is set when Path is a file outside output/ that the
	// stage's last run proposes to change (VerbCompare shows the change).
	Proposal bool
	// ItemTitle names the item, on the lenses of an output's items.
	ItemTitle *string
}

// Offer is a command a person may run from where they are.
type Offer struct {
	Title string
	Verb  Verb
	On    Target
	// Full is what a short Title stands for (a state lens's "awaiting
	// review" for the state in full), for a hover; "" when Title says it
	// all.
	Full string
	// More are the other offers of the place, which a state lens holds
	// so that a line shows at most two lenses: a client may list them
	// under it.
	More []Offer
}

// Lens is an offer shown above a line of the buffer (0-based).
type Lens struct {
	Line int
	Offer
}

// Fix is a quick fix for a finding: an edit of the buffer, or a file to
// create.
type Fix struct {
	Title     string
	Finding   contract.Finding
	Preferred bool
	// Edit replaces Edit.Range of the buffer with Edit.Text.
	Edit *Edit
	// Create is a file to create, relative to the workspace's root.
	Create string
}

// Edit replaces a byte range of the buffer.
type Edit struct {
	Range document.Range
	Text  string
}

// Actions are what a person may do about a range of the buffer: fix the
// findings there, and run the stage's commands. Fixes is nil when the
// file takes none, empty when none fits.
type Actions struct {
	Fixes    []Fix
	Commands []Offer
}
