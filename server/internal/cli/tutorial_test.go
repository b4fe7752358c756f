package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The user documents beyond the README: a tutorial for the first ten
// minutes and a glossary, linked from the README; every icm command the
// tutorial gives is one icm has, with flags it takes; and make run says
// how to put the icm of its hints on the PATH.
func TestTutorialAndGlossary(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		return string(data)
	}
	readme := read("README.md")
	for _, doc := range []string{"docs/tutorial.md", "docs/glossary.md"} {
		if !strings.Contains(readme, "("+doc+")") {
			t.Errorf("the README does not link %s", doc)
		}
	}
	walk := read("extension/media/walkthrough/run-stage.md")
	for _, doc := range []string{"docs/tutorial.md", "docs/glossary.md"} {
		if !strings.Contains(walk, doc+")") {
			t.Errorf("the walkthrough does not link %s", doc)
		}
	}
	tutorial := read("docs/tutorial.md")
	for _, step := range []string{"icm demo", "icm init", "icm check", "icm probe", "icm run", "icm approve"} {
		if !strings.Contains(tutorial, step) {
			t.Errorf("the tutorial does not show %s", step)
		}
	}
	cmds := 0
	for _, line := range strings.Split(tutorial, "\n") {
		if !strings.HasPrefix(line, "icm ") {
			continue
		}
		cmds++
		args := strings.Fields(line)[1:]
		r, _ := newRootCmd(&Env{Getenv: os.Getenv, Getwd: os.Getwd})
		cmd, rest, err := r.Find(args)
		if err != nil || cmd == r {
			t.Errorf("the tutorial's %q is no icm command (%v)", line, err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("the tutorial's %q: %v", line, err)
		}
	}
	if cmds < 8 {
		t.Errorf("the tutorial gives %d icm command lines, want the whole first ten minutes", cmds)
	}
	glossary := read("docs/glossary.md")
	for _, word := range regexp.MustCompile(`\*\*([a-z][a-z ]+)\*\*`).FindAllStringSubmatch(tutorial, -1) {
		if !strings.Contains(strings.ToLower(glossary), "**"+strings.TrimSuffix(word[1], "s")) {
			t.Errorf("the tutorial marks %q as a glossary word, but the glossary lacks it", word[1])
		}
	}
	makefile := read("Makefile")
	run := makefile[strings.Index(makefile, "\nrun:"):]
	run = run[:strings.Index(run, "\n\n")]
	if !strings.Contains(run, "PATH") || !strings.Contains(run, "bin") {
		t.Errorf("make run does not say how to put icm on the PATH:\n%s", run)
	}
}
