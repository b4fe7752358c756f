package stagetest

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/need"
)

// The JUnit XML of a run with passes, a failure, an error and a
// cancelled job validates against the Jenkins xUnit plugin's published
// JUnit schema, checked by xmllint.
func TestJUnitValidatesAgainstThePublishedSchema(t *testing.T) {
	xmllint := need.Program(t, "xmllint")
	_, client := scripted(t)
	ws := openSmall(t)
	rep := runCases(t, ws, client, Options{Models: []string{"alpha", "beta"}})
	// Add an error and a cancelled job, as a broken server and Ctrl-C leave them.
	rep.Results = append(rep.Results,
		&report.TestResult{Case: "01-idea/python", Stage: "01-idea", Model: "gamma", Repeat: 1, Status: report.TestError, Error: "model 'gamma' not found <&>", Hint: "ollama pull gamma", Duration: time.Millisecond},
		&report.TestResult{Case: "01-idea/go", Stage: "01-idea", Model: "gamma", Repeat: 1, Status: report.TestCancelled, Error: "cancelled"})
	summarize(rep)
	out := filepath.Join(t.TempDir(), "junit.xml")
	if err := WriteJUnitFile(out, rep); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit-10.xsd"), out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		data, _ := os.ReadFile(out)
		t.Fatalf("xmllint: %v\n%s\n%s", err, msg, data)
	}
	// And it says what happened.
	data, _ := os.ReadFile(out)
	var doc junitSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 6 || doc.Failures != 1 || doc.Errors != 1 || len(doc.Suites) != 1 || doc.Suites[0].Skipped != 1 {
		t.Errorf("tests %d failures %d errors %d suites %d", doc.Tests, doc.Failures, doc.Errors, len(doc.Suites))
	}
	var failed *junitTestCase
	for i, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			failed = &doc.Suites[0].Cases[i]
		}
	}
	if failed == nil || failed.Name != "go [beta] #1" || failed.ClassName != "01-idea" ||
		!strings.Contains(failed.Failure.Message, `contains "Go"`) || !strings.Contains(failed.SystemOut, "Write programs.") {
		t.Errorf("the failing case: %+v", failed)
	}
}

// A broken XML would also fail xmllint: the check can fail.
func TestXmllintRejectsWhatTheSchemaDoesNot(t *testing.T) {
	xmllint := need.Program(t, "xmllint")
	bad := filepath.Join(t.TempDir(), "bad.xml")
	os.WriteFile(bad, []byte(`<testsuites><testsuite name="x"><testcase name="y"/></testsuite></testsuites>`), 0o644)
	if err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit-10.xsd"), bad).Run(); err == nil {
		t.Error("a suite without its required tests/failures/errors counts passed the schema")
	}
}
