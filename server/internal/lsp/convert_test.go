package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/document"
)

func TestURIRoundTrip(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"spaces and non-ASCII", filepath.Join(real, "a dir", "ünï 😀.md"), filepath.Join(real, "a dir", "ünï 😀.md")},
		{"through a symlink", filepath.Join(link, "new", "CONTEXT.md"), filepath.Join(real, "new", "CONTEXT.md")},
		{"dot segments", filepath.Join(real, "x", "..", "y.md"), filepath.Join(real, "y.md")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := pathOf(uriOf(tt.path))
			if err != nil || got != tt.want {
				t.Errorf("pathOf(uriOf(%q)) = %q, %v; want %q", tt.path, got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"http://example.org/a.md", "file:relative.md", "%zz", ""} {
		if _, err := pathOf(bad); err == nil {
			t.Errorf("pathOf(%q): want an error", bad)
		}
	}
}

func TestToRangeNeverFails(t *testing.T) {
	m := document.NewMapper([]byte("é😀\nx"))
	tests := []struct {
		r         document.Range
		line, col uint32
		eline     uint32
		ecol      uint32
	}{
		{document.Range{Start: 2, End: 6}, 0, 1, 0, 3},  // the emoji is two UTF-16 units
		{document.Range{Start: 1, End: 2}, 0, 0, 0, 0},  // inside é: collapses to the start of the file
		{document.Range{Start: 7, End: 99}, 1, 0, 1, 0}, // end past the file: collapses to the start
		{document.Range{Start: 8, End: 8}, 1, 1, 1, 1},  // the very end
	}
	for _, tt := range tests {
		got := toRange(m, tt.r)
		if got.Start.Line != tt.line || got.Start.Character != tt.col || got.End.Line != tt.eline || got.End.Character != tt.ecol {
			t.Errorf("toRange(%+v) = %+v", tt.r, got)
		}
	}
}
