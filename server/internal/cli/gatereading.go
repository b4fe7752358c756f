package cli

import (
	"fmt"
	"io"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// printReading prints under the gate's lines the headings later stages
// read of the output that it lacks, and what icm warned of in the
// contract when the stage ran: the stage ran all the same, and the person
// reads them before approving.
func printReading(out io.Writer, env *Env, ws *workspace.Workspace, res *report.StageResult) {
	if res == nil {
		return
	}
	for _, l := range res.Lacked {
		at := displayPath(env, ws.Abs(l.Contract))
		if l.Line > 0 {
			at = fmt.Sprintf("%s:%d", at, l.Line)
		}
		fmt.Fprintf(out, "  %s lacks %q, which %s reads (%s): add the heading, or %s gets the whole file\n",
			displayPath(env, ws.Abs(l.Output)), l.Heading, l.Reader, at, l.Reader)
	}
	if len(res.Warnings) == 0 {
		return
	}
	n := len(res.Warnings)
	what := "warnings"
	if n == 1 {
		what = "warning"
	}
	fmt.Fprintf(out, "  icm read the contract with %d %s (the stage ran all the same):\n", n, what)
	for _, w := range res.Warnings {
		at := displayPath(env, ws.Abs(w.File))
		if w.Line > 0 {
			at = fmt.Sprintf("%s:%d", at, w.Line)
		}
		fmt.Fprintf(out, "    %s: %s\n", at, w.Message)
	}
}
