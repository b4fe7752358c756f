package workflow

import (
	"errors"
	"io/fs"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// refused refuses a model stage that cannot begin, as its run would
// once begun: its contract names no file for the model's answer, or an
// input is not there (an earlier stage has not written it yet). Refused
// before it begins, the run leaves no trace and the stage keeps its
// state, since nothing was tried. A Script stage reads its inputs
// itself, and outputs an agent hands in were made already.
func (e *Engine) refused(rep *check.Report, sr *check.StageReport) error {
	c := sr.Contract
	if c.Script != nil || e.opts.Submission != nil || e.opts.Item > 0 {
		return nil
	}
	if !writeout.Needed(c) {
		if _, err := modelOutput(e.ws, sr.Stage, c); err != nil {
			return err
		}
	}
	opts := assemble.Options{ProducedBy: rep.ProducedBy, NoReadTool: true}
	if c.ForEach != nil {
		items, rel, err := assemble.Items(e.ws, sr.Stage, c)
		if err != nil {
			if from := rep.ProducedBy[rel]; from != "" && errors.Is(err, fs.ErrNotExist) {
				return &assemble.MissingError{Stage: sr.Stage.Name, Path: rel, ProducedBy: from}
			}
			return nil // the run says what is wrong with it
		}
		if len(items) == 0 {
			return nil
		}
		assemble.WithItem(&opts, items, 1)
	}
	_, err := assemble.Stage(e.ws, sr.Stage, c, opts)
	if missing := (*assemble.MissingError)(nil); errors.As(err, &missing) {
		return err
	}
	return nil
}
