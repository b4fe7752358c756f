package state

// Warning is something icm read in a stage's contract that did not stop
// its run (an error would have): a line of its own notation written some
// other way, a heading a reference lacks, a pattern no file fit. The run
// keeps what was warned of when it ran, so its gate shows it.
type Warning struct {
	// File is the workspace-relative file the warning is about.
	File string `json:"file"`
	// Line is 1-based; 0 when the warning is about the whole file.
	Line    int    `json:"line,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}
