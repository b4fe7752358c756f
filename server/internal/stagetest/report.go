package stagetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// ReportVersion is the version of the results file's shape.
const ReportVersion = 1

// ResultsDir is where run reports are saved, under the workspace root.
var ResultsDir = filepath.Join(workspace.HistoryDir, "tests")

func caseInfo(ws *workspace.Workspace, s *report.TestCase) report.TestCaseInfo {
	return report.TestCaseInfo{ID: s.Case.ID, Stage: s.Stage.Name, Name: s.Case.Name, Title: s.Case.Title, File: ws.Rel(s.Case.File), Hash: s.Case.Hash}
}

// summarize fills Models, Matrix, Passed, Counts and SequentialSum from Results.
func summarize(rep *report.TestReport) {
	rep.Counts = map[string]int{report.TestPassed: 0, report.TestFailed: 0, report.TestError: 0, report.TestCancelled: 0}
	rows := map[[2]string]*report.TestRow{}
	var order [][2]string
	seenModel := map[string]bool{}
	rep.Models, rep.SequentialSum, rep.Passed = nil, 0, len(rep.Results) > 0
	durations := map[[2]string][]time.Duration{}
	tokens := map[[2]string][]int{}
	for _, res := range rep.Results {
		rep.Counts[res.Status]++
		rep.SequentialSum += res.Duration
		if res.Failed() {
			rep.Passed = false
		}
		if !seenModel[res.Model] {
			seenModel[res.Model] = true
			rep.Models = append(rep.Models, res.Model)
		}
		k := [2]string{res.Case, res.Model}
		row, ok := rows[k]
		if !ok {
			row = &report.TestRow{Case: res.Case, Model: res.Model}
			rows[k] = row
			order = append(order, k)
		}
		row.Runs++
		switch res.Status {
		case report.TestPassed:
			row.Passed++
		case report.TestError, report.TestCancelled:
			row.Errors++
		}
		if row.FirstFailure == "" && res.Failed() {
			row.FirstFailure = res.FirstFailure
			if row.FirstFailure == "" {
				row.FirstFailure = res.Status + ": " + res.Error
			}
		}
		if res.Cache != nil {
			row.CacheHits += res.Cache.Hits
		}
		durations[k] = append(durations[k], res.Duration)
		tokens[k] = append(tokens[k], res.Tokens())
	}
	rep.Matrix = rep.Matrix[:0]
	for _, k := range order {
		row := rows[k]
		row.MedianDuration = median(durations[k])
		row.MedianTokens = median(tokens[k])
		rep.Matrix = append(rep.Matrix, *row)
	}
}

func median[T int | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := append([]T(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Save writes the report to history/tests/<run>.json in the workspace
// (the only file a test run writes there, with the cache) and returns the
// path. Like every file of the workspace it is written through the
// workspace's Root (disk): a history/ that links out is refused.
func Save(disk *workspace.Root, rep *report.TestReport) (string, error) {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return "", fmt.Errorf("unable to encode the test report: %w", err)
	}
	p := filepath.Join(disk.Dir(), ResultsDir, rep.RunID+".json")
	if err := disk.WriteFile(p, append(data, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("unable to save the test report: %w", err)
	}
	return p, nil
}

// Runs lists the saved runs' ids, oldest first, read through the
// workspace's Root.
func Runs(disk *workspace.Root) ([]string, error) {
	entries, err := disk.ReadDir(ResultsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("unable to list the test runs: %w", err)
	}
	var ids []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			ids = append(ids, strings.TrimSuffix(e.Name(), ".json"))
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// Latest is the baseline name for the newest saved run.
const Latest = "latest"

// Load reads a saved run by id, a unique prefix of one, or Latest,
// through the workspace's Root.
func Load(disk *workspace.Root, id string) (*report.TestReport, error) {
	ids, err := Runs(disk)
	if err != nil {
		return nil, err
	}
	var match []string
	for _, x := range ids {
		if strings.HasPrefix(x, id) {
			match = append(match, x)
		}
	}
	if id == Latest && len(ids) > 0 {
		match = ids[len(ids)-1:]
	}
	dir := filepath.Join(disk.Dir(), ResultsDir)
	switch len(match) {
	case 0:
		return nil, &NoRunError{ID: id, Dir: dir}
	case 1:
	default:
		return nil, fault.InvalidRequest(fmt.Sprintf("test run %q matches %d runs in %s; give more of its id", id, len(match), dir), "give more of the test run's id")
	}
	data, err := disk.ReadFile(filepath.Join(dir, match[0]+".json"))
	if err != nil {
		return nil, fmt.Errorf("unable to read test run %s: %w", match[0], err)
	}
	var rep report.TestReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fault.Failed(fmt.Sprintf("test run %s is not a readable report: %v", match[0], err), "remove the file, or name another test run", err)
	}
	if rep.Version != ReportVersion {
		return nil, fault.Failed(fmt.Sprintf("test run %s was saved in format %d; this icm reads format %d", match[0], rep.Version, ReportVersion),
			"run the tests again to save a report this icm reads", nil)
	}
	return &rep, nil
}

// NoRunError says no saved run has the id.
type NoRunError struct{ ID, Dir string }

func (e *NoRunError) Error() string { return fmt.Sprintf("no saved test run %q in %s", e.ID, e.Dir) }

// Hint says where run ids come from.
func (e *NoRunError) Hint() string {
	return "each `icm test` prints its run id and saves it; `icm test --runs` lists them, `--baseline latest` takes the newest"
}

// Fault is a saved test run the request named that is not there.
func (e *NoRunError) Fault() *fault.Error {
	return fault.NotFound(e.Error(), "name a saved test run by its id, a unique start of it, or latest")
}

// LastPassing finds the most recent saved run before the run named
// before (or any, when before is "") in which the case passed on model,
// and returns that run's id and the output it wrote: what a failure can be
// compared with.
func LastPassing(disk *workspace.Root, caseID, model, before string) (runID, output string, ok bool) {
	ids, err := Runs(disk)
	if err != nil {
		return "", "", false
	}
	for i := len(ids) - 1; i >= 0; i-- {
		if before != "" && ids[i] >= before {
			continue
		}
		rep, err := Load(disk, ids[i])
		if err != nil {
			continue
		}
		for _, r := range rep.Results {
			if r.Case == caseID && r.Model == model && r.Status == report.TestPassed && r.Output != "" {
				return rep.RunID, r.Outputs[r.Output], true
			}
		}
	}
	return "", "", false
}
