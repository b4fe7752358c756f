package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckAndNextTools: the check tool lists the findings icm check
// prints, line for line (one stage's with stage), with the counts in
// words; next names the stage to run and its context resource, then,
// after a hand-in, the stage awaiting a person.
func TestCheckAndNextTools(t *testing.T) {
	dir := trustedCopy(t, "course-research")
	research := filepath.Join(dir, "pipeline", "02-research", "CONTEXT.md")
	src, err := os.ReadFile(research)
	if err != nil {
		t.Fatal(err)
	}
	withMissing := strings.Replace(string(src), "## Inputs\n", "## Inputs\n- Layer 4 (working): missing.md\n", 1)
	if err := os.WriteFile(research, []byte(withMissing), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := agentVars(t)
	c := startMCP(t, dir, vars, "checker", nil, "mcp", "workspace")

	out, _, code := runAsUser(t, dir, vars, "check")
	if code != 1 {
		t.Fatalf("icm check exit %d, want 1 (one error):\n%s", code, out)
	}
	var findings, research02 []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "pipeline/") {
			findings = append(findings, l)
			if strings.HasPrefix(l, "pipeline/02-research/") {
				research02 = append(research02, l)
			}
		}
	}
	if len(findings) < 2 || len(research02) == 0 || len(research02) == len(findings) {
		t.Fatalf("icm check printed too little to compare:\n%s", out)
	}
	text, isErr := c.tool("check", nil)
	if isErr {
		t.Fatalf("check: %s", text)
	}
	warnings := 0
	for _, l := range findings {
		if strings.Contains(l, ": warning: ") {
			warnings++
		}
	}
	notes := len(findings) - 1 - warnings
	want := strings.Join(findings, "\n") + fmt.Sprintf("\n1 error, %d warnings, %d notes\n", warnings, notes)
	if text != want {
		t.Errorf("the check tool:\n%s\nwant icm check's findings:\n%s", text, want)
	}
	text, _ = c.tool("check", map[string]any{"stage": "02-research"})
	if !strings.HasPrefix(text, strings.Join(research02, "\n")+"\n") || strings.Contains(text, "pipeline/03-outline") {
		t.Errorf("one stage's findings:\n%s\nwant:\n%s", text, strings.Join(research02, "\n"))
	}
	if text, isErr := c.tool("check", map[string]any{"stage": "09-none"}); !isErr || !strings.Contains(text, "09-none") {
		t.Errorf("an unknown stage (isError %v): %s", isErr, text)
	}

	// 02-research cannot run as written; the next step is still 01-scope.
	text, _ = c.tool("next", nil)
	if !strings.Contains(text, "01-scope") || !strings.Contains(text, "probe 01-scope, then submit_outputs; or run_stage") || !strings.Contains(text, "Its context: icm://01-scope/context\n") {
		t.Errorf("next before a run:\n%s", text)
	}
	handInScope(t, c)
	text, _ = c.tool("next", nil)
	if !strings.Contains(text, "call request_review for 01-scope and stop") || strings.Contains(text, "Its context") {
		t.Errorf("next after a hand-in:\n%s", text)
	}
}
