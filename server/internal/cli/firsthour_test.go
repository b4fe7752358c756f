package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// are, not cobra's count of arguments.
func TestProbeWithoutAStageNamesTheStages(t *testing.T) {
	dir := initWorkspace(t)
	_, errOut, code := runAsUser(t, dir, nil, "probe")
	if code == 0 || strings.Contains(errOut, "arg(s)") || !strings.Contains(errOut, "name the stage") || !strings.Contains(errOut, "01-draft") {
		t.Errorf("probe without a stage (exit %d):\n%s", code, errOut)
	}
}

// A mistyped flag gets the flag it was probably meant to be.
func TestMistypedFlagGetsTheFlagMeant(t *testing.T) {
	dir := initWorkspace(t)
	_, errOut, code := runAsUser(t, dir, nil, "run", "--stag", "01-draft")
	if code == 0 || !strings.Contains(errOut, "--stage") {
		t.Errorf("run --stag (exit %d) suggests nothing:\n%s", code, errOut)
	}
}

// A value of the wrong type reads as English: "an integer", once.
func TestConfigTypeErrorReadsAsEnglish(t *testing.T) {
	dir := initWorkspace(t)
	editFile(t, dir, "config.toml", "[model]", "[model]\nnum_ctx = \"big\"")
	out, _, _ := runICM(t, "check", "-w", dir)
	if strings.Contains(out, "a integer") || !strings.Contains(out, "icm reads an integer") || strings.Count(out, "integer") != 1 {
		t.Errorf("check says of a string where an integer goes:\n%s", out)
	}
}

// -w naming a file says it is a file, and which folder to give.
func TestWorkspaceFlagOnAFileSaysItIsAFile(t *testing.T) {
	dir := initWorkspace(t)
	file := filepath.Join(dir, "config.toml")
	_, errOut, code := runICM(t, "check", "-w", file)
	if code == 0 || strings.Contains(errOut, "no such folder") || !strings.Contains(errOut, "is a file") || !strings.Contains(errOut, "-w "+dir) {
		t.Errorf("check -w FILE (exit %d):\n%s", code, errOut)
	}
}

// -w on the folder above a workspace names the workspace inside it.
func TestWorkspaceFlagAboveAWorkspaceNamesIt(t *testing.T) {
	dir := initWorkspace(t)
	above := filepath.Dir(dir)
	_, errOut, code := runICM(t, "status", "-w", above)
	if code == 0 || !strings.Contains(errOut, "-w "+dir) {
		t.Errorf("status -w on the folder above a workspace (exit %d):\n%s", code, errOut)
	}
}

// neither errors nor warnings: note (docs/vocabulary.md).
func TestCheckCallsANoteANote(t *testing.T) {
	dir := initWorkspace(t)
	out, _, _ := runICM(t, "check", "-w", dir)
	if strings.Contains(out, ": info: ") || !strings.Contains(out, ": note: ") || !strings.Contains(out, "1 note") {
		t.Errorf("check's tags and count use two words:\n%s", out)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "vocabulary.md"))
	if err != nil || !strings.Contains(string(doc), "`note`") {
		t.Errorf("docs/vocabulary.md does not give the word for a note (%v)", err)
	}
}
