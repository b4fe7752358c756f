package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/lsp/lsptest"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// configEditReply is icm.editConfig's answer.
type configEditReply struct {
	Edit *struct {
		DocumentChanges []struct {
			TextDocument struct {
				URI     string `json:"uri"`
				Version *int   `json:"version"`
			} `json:"textDocument"`
			Edits []struct {
				Range struct {
					Start, End struct{ Line, Character int }
				} `json:"range"`
				NewText string `json:"newText"`
			} `json:"edits"`
		} `json:"documentChanges"`
	} `json:"edit"`
	Line   *int   `json:"line"`
	Reason string `json:"reason"`
}

// apply makes the reply's one edit on text (ASCII: a column is a byte).
func (r configEditReply) apply(t *testing.T, text string) string {
	t.Helper()
	if r.Edit == nil || len(r.Edit.DocumentChanges) != 1 || len(r.Edit.DocumentChanges[0].Edits) != 1 {
		t.Fatalf("not one edit: %+v", r)
	}
	e := r.Edit.DocumentChanges[0].Edits[0]
	lines := strings.SplitAfter(text, "\n")
	off := func(line, col int) int {
		n := 0
		for _, l := range lines[:line] {
			n += len(l)
		}
		return n + col
	}
	return text[:off(e.Range.Start.Line, e.Range.Start.Character)] + e.NewText + text[off(e.Range.End.Line, e.Range.End.Character):]
}

func editConfig(t *testing.T, ed *lsptest.Editor, args map[string]any) (configEditReply, error) {
	t.Helper()
	raw, err := ed.ExecuteCommand("icm.editConfig", args)
	var r configEditReply
	if err == nil {
		if jerr := json.Unmarshal(raw, &r); jerr != nil {
			t.Fatalf("%v: %s", jerr, raw)
		}
	}
	return r, err
}

// TestEditConfig: icm.editConfig edits config.toml where the value is
// written, on the editor's buffer when it is open (the edit names its
// version) and on the file otherwise; a key that does not hold the value
// it must hold now gets no edit and the reason; what a line edit cannot
// reach is an error that names the line.
func TestEditConfig(t *testing.T) {
	dir := wstest.Write(t, `
-- config.toml --
# Settings
[model]
name = "qwen3.5:9"   # on disk
-- stages/01-notice/CONTEXT.md --
# Stage: 01-notice

## Process
Write a notice.

## Outputs
- notice.md -> output/
`)
	cfg := lsptest.Config{Root: dir}
	cfg.Options.Self = icmBin
	ed := lsptest.Start(t, cfg)
	ed.Await("the workspace is known", func() bool {
		_, err := ed.ExecuteCommand("icm.status", map[string]any{"workspace": dir})
		return err == nil
	})
	use := map[string]any{"workspace": dir, "table": "model", "key": "name", "value": "qwen3.5:9b", "current": "qwen3.5:9"}

	t.Run("the file on disk", func(t *testing.T) {
		r, err := editConfig(t, ed, use)
		if err != nil {
			t.Fatal(err)
		}
		disk, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
		dc := r.Edit.DocumentChanges[0]
		if got := r.apply(t, string(disk)); got != "# Settings\n[model]\nname = \"qwen3.5:9b\"   # on disk\n" {
			t.Errorf("edited: %q", got)
		}
		if dc.TextDocument.Version != nil || dc.TextDocument.URI != lsptest.URI(filepath.Join(dir, "config.toml")) || *r.Line != 2 {
			t.Errorf("edit of %s version %v line %d", dc.TextDocument.URI, dc.TextDocument.Version, *r.Line)
		}
	})
	t.Run("the open buffer", func(t *testing.T) {
		buffer := "[model]\nname = 'qwen3.5:9' # in the editor\n"
		ed.OpenText("config.toml", buffer)
		defer ed.Close("config.toml")
		r, err := editConfig(t, ed, use)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.apply(t, buffer); got != "[model]\nname = 'qwen3.5:9b' # in the editor\n" {
			t.Errorf("edited: %q", got)
		}
		if v := r.Edit.DocumentChanges[0].TextDocument.Version; v == nil {
			t.Error("an edit of an open buffer names no version")
		}
	})
	t.Run("another value than the one it must have", func(t *testing.T) {
		r, err := editConfig(t, ed, map[string]any{"workspace": dir, "table": "model", "key": "name", "value": "b", "current": "llama3"})
		if err != nil || r.Edit != nil || !strings.Contains(r.Reason, `[model] name is qwen3.5:9, not llama3`) {
			t.Errorf("%+v %v", r, err)
		}
		r, err = editConfig(t, ed, map[string]any{"workspace": dir, "table": "workflow", "key": "gate", "value": "auto", "current": "explicit"})
		if err != nil || r.Edit != nil || r.Reason != "config.toml does not set [workflow] gate" {
			t.Errorf("%+v %v", r, err)
		}
	})
	t.Run("a new key", func(t *testing.T) {
		r, err := editConfig(t, ed, map[string]any{"workspace": dir, "table": "model", "key": "num_ctx", "value": 8192})
		if err != nil {
			t.Fatal(err)
		}
		disk, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
		if got := r.apply(t, string(disk)); !strings.HasSuffix(got, "# on disk\nnum_ctx = 8192\n") {
			t.Errorf("edited: %q", got)
		}
	})
	t.Run("what a line edit cannot reach", func(t *testing.T) {
		ed.OpenText("config.toml", "model = { name = \"a\" }\n")
		defer ed.Close("config.toml")
		_, err := editConfig(t, ed, map[string]any{"workspace": dir, "table": "model", "key": "name", "value": "b"})
		re, ok := lsptest.AsReplyError(err)
		if !ok || !strings.Contains(re.Message, "config.toml:1: [model] name cannot be edited on its own line") || !strings.Contains(string(re.Data), "config-invalid") {
			t.Errorf("%v", err)
		}
	})
	t.Run("no key", func(t *testing.T) {
		if _, err := editConfig(t, ed, map[string]any{"workspace": dir, "table": "model", "value": "b"}); err == nil {
			t.Error("an edit without a key")
		}
	})
}
