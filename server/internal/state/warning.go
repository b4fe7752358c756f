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

// LackedHeading is a heading a later stage reads of a stage's output that the
// output, as it is on disk, does not have: that stage gets the whole file
// (with a warning). The stage's gate says so, so the person can add the
// heading before approving.
type LackedHeading struct {
	// Output is the output file, workspace-relative.
	Output string `json:"output"`
	// Heading is the heading the later stage names.
	Heading string `json:"heading"`
	// Reader is the later stage; Contract its contract, workspace-relative,
	// and Line the line of the input there.
	Reader   string `json:"reader"`
	Contract string `json:"contract"`
	Line     int    `json:"line,omitempty"`
}
