package contract

import "strings"

// The skeletons icm writes (icm init, icm new-stage) hold text for a
// person to replace. Left as it is, it is what the model gets: check
// notes it (CodeUnedited) with what to write instead.

// Skeleton texts: the first sentence of each is how check recognises it.
const (
	// SkeletonPurpose is a new stage's purpose line, in its contract and
	// the routing file's stage list.
	SkeletonPurpose = "One sentence on what this stage does."
	// SkeletonProcess is a new stage's Process.
	SkeletonProcess = "Say what to do with the inputs, step by step, and what to write. Be as\nspecific as you would be with a new colleague."
)

// Skeleton is a text of icm's skeletons for a person to replace, and
// what to write instead.
type Skeleton struct {
	// Text is the text's first sentence, as the skeleton writes it.
	Text string
	// What names the text in a note ("the stage's purpose line").
	What string
	// Fix says what to write instead.
	Fix string
}

// Skeletons of the contract and the routing file, and of the files they
// name (the placeholder input and reference file).
var (
	PurposeSkeleton = Skeleton{Text: SkeletonPurpose, What: "the skeleton's purpose line",
		Fix: "say in one sentence what the stage does"}
	ProcessSkeleton = Skeleton{Text: firstSentence(SkeletonProcess), What: "the Process is the skeleton's",
		Fix: "write what the model should do with the inputs, step by step, and what to write"}
	FileSkeletons = []Skeleton{
		{Text: "Replace this text with the material the first stage works on", What: "icm init's placeholder",
			Fix: "replace it with the material the stage works on: an idea, a brief, notes, a draft"},
		{Text: "Replace this text with this stage's working input.", What: "icm init's placeholder",
			Fix: "replace it with this stage's working input"},
		{Text: "Reference material this stage follows on every run (layer 3).", What: "icm new-stage's placeholder",
			Fix: "replace it with what the stage follows on every run (a style guide, a checklist)"},
	}
)

// firstSentence is s up to its first full stop, spaces made single.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// In reports whether text holds the skeleton's text (spaces and line
// breaks aside).
func (k Skeleton) In(text string) bool {
	return strings.Contains(strings.Join(strings.Fields(text), " "), k.Text)
}
