package session

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
)

const withCase = `
-- CLAUDE.md --
# Notes
-- config.toml --
[model]
name = "config-model"
base_url = "%s"
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Inputs
- Layer 4 (working): in.md

## Process
Write A.

## Outputs
- a.md -> output/
-- pipeline/01-a/in.md --
real
-- pipeline/01-a/tests/one.md --
# Case: one

## Inputs
### in.md
~~~
stand-in
~~~

## Expect
- contains "A"
- rubric: it is about A
`

// Stage tests run through the session: its client and server, the
// editor's model as the matrix's model and the judge, and a dead server
// found before any job.
func TestStageTestsGoThroughTheSession(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "config-model"}, {Name: "set-model"}}})
	srv.On(ollamatest.HasFormat()).Reply(ollamatest.JSON(map[string]any{"score": 9, "reason": "It is about A."}))
	srv.Default(ollamatest.Text("A is written."))
	run := func(set Settings, url string) (*report.TestReport, error) {
		ws := openTrusted(t, strings.Replace(withCase, "%s", url, 1))
		s := Open(ws, Options{Settings: set})
		defer s.Close()
		plan, err := s.Tests().Plan(TestRequest{})
		if err != nil {
			t.Fatal(err)
		}
		run, err := plan.Run(context.Background())
		if err != nil {
			return nil, err
		}
		if run.Saved == "" || run.SaveErr != nil {
			t.Errorf("the report was not saved: %v", run.SaveErr)
		}
		return run.TestReport, nil
	}
	rep, err := run(Settings{}, srv.URL())
	if err != nil || !rep.Passed || rep.Models[0] != "config-model" {
		t.Fatalf("%v %+v", err, rep)
	}
	if got := models(srv); strings.Join(got, ",") != "config-model,config-model" {
		t.Errorf("calls went to %v", got)
	}
	before := len(srv.ChatRequests())
	rep, err = run(Settings{Model: "set-model"}, srv.URL())
	if err != nil || !rep.Passed || strings.Join(rep.Models, ",") != "set-model" {
		t.Fatalf("%v %+v", err, rep)
	}
	if got := models(srv)[before:]; strings.Join(got, ",") != "set-model,set-model" {
		t.Errorf("with the setting, the stage and the judge used %v", got)
	}
	_, err = run(Settings{}, closedPort(t))
	var fe *fault.Error
	if !errors.As(err, &fe) || fe.Kind != fault.KindModelUnreachable {
		t.Errorf("a dead server: %v", err)
	}
}
