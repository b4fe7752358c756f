package trust

import "fmt"

// How says how a grant holds one program or file a command names.
type How string

// Ways a word of a command is pinned.
const (
	// Content: a regular file inside the workspace or its repository (the
	// program, a script, a file given to an interpreter): its content's
	// sha256 is pinned, so a changed file untrusts the workspace.
	Content How = "content"
	// Generated: a file icm's own runs write (a stage's output, a
	// proposal, icm's state): what runs there is generated content, and
	// is not pinned.
	Generated How = "generated"
	// OnPath: a program found on PATH, pinned by its name.
	OnPath How = "path"
	// Self: icm itself (`command = "icm"`, "$ICM_BIN").
	Self How = "icm"
	// Fetches: a launcher that fetches the code it runs when it runs
	// (npx, uvx, pipx run, ...): what runs cannot be pinned.
	Fetches How = "fetches"
	// TooLarge: a file of the workspace over the read cap, pinned by its
	// name.
	TooLarge How = "too-large"
	// Outside: a program outside the workspace and its repository (an
	// absolute path, a link out), pinned by its name.
	Outside How = "outside"
	// Variable: a program a variable chooses when it runs, pinned as
	// written.
	Variable How = "variable"
)

// Pin is one program or file of a command, and how the grant holds it.
type Pin struct {
	How How `json:"how"`
	// Word is the program as the command line names it ("python3",
	// "npx", "/opt/tool"), for a pin that holds no file.
	Word string `json:"word,omitempty"`
	// File is the file's path: relative to the workspace, or "/" and its
	// path below the repository root for one outside the workspace
	// ("/tools/x.sh"); "" for a program pinned by its name.
	File string `json:"file,omitempty"`
	// SHA256 is the file's content hash (How Content).
	SHA256 string `json:"sha256,omitempty"`
}

// String says how the pin holds, for a person.
func (p Pin) String() string {
	switch p.How {
	case Content:
		return fmt.Sprintf("pins %s by its content (sha256 %s)", p.File, short(p.SHA256))
	case Generated:
		return fmt.Sprintf("runs generated content: %s is written by icm's own runs, so it is not pinned", p.File)
	case OnPath:
		return fmt.Sprintf("%s is found on PATH: pinned by its name", p.Word)
	case Self:
		return fmt.Sprintf("%s is icm itself", p.Word)
	case Fetches:
		return fmt.Sprintf("%s fetches the code it runs when it runs: what runs cannot be pinned", p.Word)
	case TooLarge:
		return fmt.Sprintf("%s is too large to pin by its content: pinned by its name", p.File)
	case Outside:
		return fmt.Sprintf("%s is outside the workspace and its repository: pinned by its name", p.Word)
	case Variable:
		return fmt.Sprintf("%s is chosen by a variable when it runs: pinned as written", p.Word)
	}
	return fmt.Sprintf("%s: %s", p.Word, p.How)
}

// change says what a pin the grant did not hold means, given the
// grant's pins of the same command by file.
func (p Pin) change(granted map[string]Pin) string {
	if p.File == "" {
		return p.String() + " (new since you trusted it)"
	}
	if _, had := granted[p.File]; !had {
		return p.File + " is new since you trusted it"
	}
	if p.How == TooLarge {
		return p.File + " changed since you trusted it, and is now too large to pin"
	}
	return p.File + " changed since you trusted it"
}

// short is the start of a hash, enough for a person to compare.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
