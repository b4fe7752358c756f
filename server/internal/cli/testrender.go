package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/report"
)

// printMatrix writes the case × model matrix: per cell the pass rate (k of
// N), the median tokens and time; then the first failing expectation of
// each cell that did not pass, and the comparison with a baseline.
func printMatrix(w io.Writer, rep *report.TestReport, cmp *report.TestComparison) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "case\t%s\n", strings.Join(rep.Models, "\t"))
	var cases []string
	seen := map[string]bool{}
	for _, r := range rep.Matrix {
		if !seen[r.Case] {
			seen[r.Case] = true
			cases = append(cases, r.Case)
		}
	}
	for _, c := range cases {
		cells := []string{c}
		for _, m := range rep.Models {
			row, ok := rep.Row(c, m)
			if !ok {
				cells = append(cells, "-")
				continue
			}
			cells = append(cells, matrixCell(row))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	var failures []string
	for _, r := range rep.Matrix {
		if r.Passed < r.Runs && r.FirstFailure != "" {
			failures = append(failures, fmt.Sprintf("  %s × %s: %s", r.Case, r.Model, oneLine(r.FirstFailure)))
		}
	}
	if len(failures) > 0 {
		fmt.Fprintln(w, "\nfirst failing expectation:")
		fmt.Fprintln(w, strings.Join(failures, "\n"))
	}
	if cmp != nil {
		fmt.Fprintf(w, "\nagainst %s: %d better, %d worse\n", cmp.Baseline, cmp.Better, cmp.Worse)
		for _, c := range cmp.Changes {
			if c.Kind != report.ChangeSame {
				fmt.Fprintf(w, "  %s\n", oneLine(c.String()))
			}
		}
	}
	fmt.Fprintf(w, "\n%s in %s", counts(rep), human.Duration(rep.Duration))
	if rep.SequentialSum > 0 && rep.Parallel > 1 {
		fmt.Fprintf(w, " (%s of work, %d at a time)", human.Duration(rep.SequentialSum), rep.Parallel)
	}
	fmt.Fprintln(w)
}

// matrixCell is one matrix cell: "✓ 3/3  812 tok  2.1s", with the cache's
// replays when there were any.
func matrixCell(r report.TestRow) string {
	mark := "✓"
	if r.Passed < r.Runs {
		mark = "✗"
	}
	s := fmt.Sprintf("%s %s  %s  %s", mark, r.Rate(), human.Tokens(r.MedianTokens), human.Duration(r.MedianDuration))
	if r.CacheHits > 0 {
		s += fmt.Sprintf("  (%d cached)", r.CacheHits)
	}
	return s
}

func counts(rep *report.TestReport) string {
	parts := []string{fmt.Sprintf("%d passed", rep.Counts[report.TestPassed])}
	for _, k := range []string{report.TestFailed, report.TestError, report.TestCancelled} {
		if n := rep.Counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}

// testMarks are how a job's outcome reads at the terminal, as the Test
// Explorer's output writes it too (docs/vocabulary.md).
var testMarks = map[string]string{report.TestPassed: "✓", report.TestFailed: "✗", report.TestError: "!", report.TestCancelled: "-"}

// jobLine is one finished job as progress: "✓ [3/12] 01-scope/go-cli ×
// qwen3.5:9b #1  2.1s" and, for a failure, its first failing expectation.
func jobLine(ev report.TestEvent) string {
	r := ev.Result
	mark := testMarks[r.Status]
	s := fmt.Sprintf("%s [%d/%d] %s × %s #%d  %s", mark, ev.Index, ev.Total, r.Case, r.Model, r.Repeat, human.Duration(r.Duration))
	if r.Cache != nil && r.Cache.Hits > 0 {
		s += fmt.Sprintf("  cache %d hit(s), key %s", r.Cache.Hits, r.Cache.Keys[0].Key[:12])
	}
	switch r.Status {
	case report.TestFailed:
		s += "\n    " + oneLine(r.FirstFailure)
	case report.TestError:
		s += "\n    " + oneLine(r.Error)
		if r.Hint != "" {
			s += "\n    hint: " + oneLine(r.Hint)
		}
	}
	if r.Copy != "" {
		s += "\n    copy kept at " + r.Copy
	}
	return s
}

func oneLine(s string) string {
	return clip(strings.Join(strings.Fields(s), " "), 300)
}
