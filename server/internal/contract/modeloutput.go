package contract

// ModelOutput is the output a model stage writes its answer to: the first
// one with a concrete file name (no placeholder, not a folder, not a
// non-file row). ok is false when there is none, and then the stage cannot
// run on a model as written, though it may be valid ICM notation.
func (c *Contract) ModelOutput() (o Output, ok bool) {
	for _, o := range c.Outputs {
		if !o.Templated && !o.Dir && !o.NonFile && o.Path != "" && !NonText(o.Path) {
			return o, true
		}
	}
	return Output{}, false
}

// NoModelOutputHint says what a model stage without a concrete output
// needs, in the same words for icm check and icm run.
const NoModelOutputHint = "add an output with a concrete file name (e.g. `- report.md -> output/`): a model stage writes its answer to one file"
