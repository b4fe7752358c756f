package stagetest

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/report"
)

// JUnit XML, in the shape CI servers read (the Ant/Surefire format as
// Jenkins' xUnit schema describes it): one <testsuite> per stage, one
// <testcase> per job, named CASE [MODEL] #REPEAT with the stage as its
// class, a <failure> for a failed expectation and an <error> for a job
// that could not be judged.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties *junitProps     `xml:"properties,omitempty"`
	Cases      []junitTestCase `xml:"testcase"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the report as JUnit XML.
func WriteJUnit(w io.Writer, rep *report.TestReport) error {
	out := junitSuites{Name: "icm test " + rep.RunID, Time: seconds(rep.Duration)}
	index := map[string]int{}
	var times []time.Duration
	for _, res := range rep.Results {
		i, ok := index[res.Stage]
		if !ok {
			i = len(out.Suites)
			index[res.Stage] = i
			times = append(times, 0)
			out.Suites = append(out.Suites, junitSuite{Name: res.Stage, Timestamp: rep.Started.UTC().Format("2006-01-02T15:04:05"),
				Properties: &junitProps{Props: []junitProp{
					{Name: "run", Value: rep.RunID}, {Name: "models", Value: strings.Join(rep.Models, ",")},
					{Name: "repeat", Value: fmt.Sprint(rep.Repeat)}, {Name: "seed", Value: fmt.Sprint(rep.Seed)},
				}}})
		}
		s := &out.Suites[i]
		tc := junitTestCase{Name: fmt.Sprintf("%s [%s] #%d", strings.TrimPrefix(res.Case, res.Stage+"/"), res.Model, res.Repeat),
			ClassName: res.Stage, Time: seconds(res.Duration)}
		switch res.Status {
		case report.TestFailed:
			tc.Failure = &junitProblem{Message: clip(res.FirstFailure, 500), Type: "expectation", Text: failureText(res)}
			s.Failures++
			out.Failures++
		case report.TestError:
			tc.Error = &junitProblem{Message: clip(res.Error, 500), Type: "error", Text: strings.TrimSpace(res.Error + "\n" + res.Hint)}
			s.Errors++
			out.Errors++
		case report.TestCancelled:
			tc.Skipped = &junitProblem{Message: "cancelled"}
			s.Skipped++
		}
		if res.Output != "" {
			tc.SystemOut = res.Outputs[res.Output]
		}
		s.Tests++
		out.Tests++
		s.Cases = append(s.Cases, tc)
		times[i] += res.Duration
		s.Time = seconds(times[i])
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("unable to write JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteJUnitFile writes the report as JUnit XML to path.
func WriteJUnitFile(path string, rep *report.TestReport) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("unable to write the JUnit report: %w", err)
	}
	if err := WriteJUnit(f, rep); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// failureText lists every check that did not hold, with its findings.
func failureText(res *report.TestResult) string {
	var b strings.Builder
	for _, c := range res.Checks {
		if c.OK {
			continue
		}
		fmt.Fprintf(&b, "✗ %s\n  %s\n", c.Expect, c.Message)
		for _, f := range c.Findings[min(1, len(c.Findings)):] {
			fmt.Fprintf(&b, "  %s\n", findingText(f))
		}
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
