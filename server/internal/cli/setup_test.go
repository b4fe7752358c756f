package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/creack/pty"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// setupWorkspace asks three questions in its questionnaire (one a choice
// with a default, one whose answer a derived variable takes too), and one
// of its inputs' paths needs a variable no question asks for.
const setupWorkspace = `
-- CLAUDE.md --
# Club secretary for {{CLUB_NAME}}
-- config.toml --
[model]
name = "m"
-- setup/questionnaire.md --
# Setup

### Q1: What is the club called?
- Placeholder: ` + "`{{CLUB_NAME}}`" + `

### Q2: When do you meet?
- Placeholder: ` + "`{{MEETING_DAY}}`" + `
- Options: Monday, Friday, Sunday
- Default: Friday

### Q3: What is its short name?
- Placeholder: ` + "`{{CLUB_SHORT}}`" + `

Derived: ` + "`{{CLUB_SLUG}}`" + ` from Q3
-- stages/01-notice/CONTEXT.md --
# Stage: 01-notice

## Inputs
- Layer 3 (reference): {{ARCHIVE_DIR}}/minutes.md

## Process
Write the meeting notice for {{CLUB_NAME}} ({{CLUB_SLUG}}), meeting on {{MEETING_DAY}}.

## Outputs
- notice.md -> output/
`

// ttyRun runs icm with stdin and stdout on a pseudo-terminal, typing the
// answers one line at a time as each prompt appears, and returns what the
// terminal showed.
func ttyRun(t *testing.T, dir string, answers []string, args ...string) (string, int) {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer master.Close()
	var mu sync.Mutex
	var shown bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			shown.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	prompts := func() int {
		mu.Lock()
		defer mu.Unlock()
		return strings.Count(shown.String(), "> ")
	}
	codec := make(chan int, 1)
	go func() {
		var errb bytes.Buffer
		env := &Env{Stdin: slave, Stdout: slave, Stderr: &errb, Getenv: func(string) string { return "" },
			Getwd: func() (string, error) { return dir, nil }, Self: filepath.Join(t.TempDir(), "icm-not-built")}
		code := exitCode(env, Run(context.Background(), env, args))
		if errb.Len() > 0 {
			t.Logf("stderr: %s", errb.String())
		}
		codec <- code
	}()
	for i, a := range answers {
		deadline := time.Now().Add(10 * time.Second)
		for prompts() <= i {
			if time.Now().After(deadline) {
				t.Fatalf("no prompt %d on the terminal:\n%s", i+1, shown.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := io.WriteString(master, a+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	code := <-codec
	slave.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return strings.ReplaceAll(shown.String(), "\r\n", "\n"), code
}

// icm setup at a terminal: each question in turn (a choice with its
// options, numbered, and its default), then the variable no question asks
// for; the answers go to [vars], a derived variable takes its question's
// answer, Enter takes the default; icm check then notes nothing unset.
func TestSetupAtATerminal(t *testing.T) {
	dir := wstest.Write(t, setupWorkspace)
	shown, code := ttyRun(t, dir, []string{"Heron Watchers", "", "herons", "archive"}, "setup")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, shown)
	}
	for _, want := range []string{
		"4 questions (from setup/questionnaire.md)",
		"1. What is the club called?  ({{CLUB_NAME}})",
		"2. When do you meet?  ({{MEETING_DAY}})\n   1) Monday\n   2) Friday\n   3) Sunday\n   [Friday] > ",
		"3. What is its short name?  ({{CLUB_SHORT}}, {{CLUB_SLUG}})",
		"4. Value of {{ARCHIVE_DIR}}  ({{ARCHIVE_DIR}})",
		"wrote 5 values to [vars]",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, shown)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Model struct{ Name string }
		Vars  map[string]string
	}
	if _, err := toml.Decode(string(data), &cfg); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"CLUB_NAME": "Heron Watchers", "MEETING_DAY": "Friday", "CLUB_SHORT": "herons", "CLUB_SLUG": "herons", "ARCHIVE_DIR": "archive"}
	for k, v := range want {
		if cfg.Vars[k] != v {
			t.Errorf("[vars] %s = %q, want %q\n%s", k, cfg.Vars[k], v, data)
		}
	}
	if cfg.Model.Name != "m" {
		t.Errorf("the rest of config.toml was lost:\n%s", data)
	}
	out, _, _ := runICM(t, "check", "-w", dir)
	if strings.Contains(out, "setup-time variable") {
		t.Errorf("check still notes unset variables:\n%s", out)
	}
	// Run again: nothing left to ask.
	again, _ := ttyRun(t, dir, nil, "setup")
	if !strings.Contains(again, "nothing to set up") {
		t.Errorf("second run:\n%s", again)
	}
}

// Before setup, check notes what is unset; an answer left empty with no
// default stays unset and is named at the end; the input ending stops the
// questions and saves what was answered.
func TestSetupLeavesUnansweredUnset(t *testing.T) {
	dir := wstest.Write(t, setupWorkspace)
	out, _, _ := runICM(t, "check", "-w", dir)
	if !strings.Contains(out, "{{ARCHIVE_DIR}}") || !strings.Contains(out, "{{MEETING_DAY}}") {
		t.Errorf("check does not note the unset variable:\n%s", out)
	}
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: strings.NewReader("\n3\n"), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" },
		Getwd: func() (string, error) { return dir, nil }, Self: filepath.Join(t.TempDir(), "icm-not-built")}
	if code := exitCode(env, Run(context.Background(), env, []string{"setup"})); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got := stdout.String()
	if !strings.Contains(got, "wrote 1 value to [vars]") || !strings.Contains(got, "still unset: {{CLUB_NAME}}, {{CLUB_SHORT}}, {{CLUB_SLUG}}, {{ARCHIVE_DIR}}") {
		t.Errorf("setup said:\n%s", got)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	if !strings.Contains(string(data), `MEETING_DAY = "Sunday"`) {
		t.Errorf("config.toml:\n%s", data)
	}
}

// Without a questionnaire, setup asks for each variable the texts hold.
func TestSetupWithoutAQuestionnaire(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Guide for {{TOWN}}
-- stages/01-walk/CONTEXT.md --
# Stage: 01-walk

## Process
Plan a walk from {{START}} to the river.

## Outputs
- walk.md -> output/
`)
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: strings.NewReader("the bridge\nRiverton\n"), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" },
		Getwd: func() (string, error) { return dir, nil }, Self: filepath.Join(t.TempDir(), "icm-not-built")}
	if code := exitCode(env, Run(context.Background(), env, []string{"setup"})); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	got := stdout.String()
	for _, want := range []string{"1. Value of {{START}}", "2. Value of {{TOWN}}", "wrote 2 values"} {
		if !strings.Contains(got, want) {
			t.Errorf("setup lacks %q:\n%s", want, got)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	if !strings.Contains(string(data), "[vars]\nSTART = \"the bridge\"\nTOWN = \"Riverton\"\n") {
		t.Errorf("config.toml:\n%s", data)
	}
}

// TestSetupOfAWorkspaceWithNoSetupStep: a workspace with no questionnaire
// and no {{VARIABLE}} has no setup step, and setup says so; before, it
// said every variable had a value in [vars], of a workspace with neither.
func TestSetupOfAWorkspaceWithNoSetupStep(t *testing.T) {
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Guide
-- stages/01-walk/CONTEXT.md --
# Stage: 01-walk

## Process
Plan a walk to the river.

## Outputs
- walk.md -> output/
`)
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" },
		Getwd: func() (string, error) { return dir, nil }, Self: filepath.Join(t.TempDir(), "icm-not-built")}
	if code := exitCode(env, Run(context.Background(), env, []string{"setup"})); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got := stdout.String(); !strings.Contains(got, "no setup questionnaire") || strings.Contains(got, "has a value in [vars]") {
		t.Errorf("setup says:\n%s", got)
	}
}
