package document

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/workspace"
)

func pr(l1, c1, l2, c2 int) *PosRange {
	return &PosRange{Start: Position{l1, c1}, End: Position{l2, c2}}
}

func TestStoreApply(t *testing.T) {
	// "é" is 2 bytes and 1 UTF-16 unit; "😀" is 4 bytes and 2 units.
	const start = "# Stage: é😀x\nЖук: b\n"
	tests := []struct {
		name    string
		changes []Change
		want    string
		wantErr bool
	}{
		{"insert after the emoji", []Change{{Range: pr(0, 12, 0, 12), Text: "Y"}}, "# Stage: é😀Yx\nЖук: b\n", false},
		{"replace the emoji", []Change{{Range: pr(0, 10, 0, 12), Text: "!"}}, "# Stage: é!x\nЖук: b\n", false},
		{"delete across lines", []Change{{Range: pr(0, 13, 1, 3), Text: ""}}, "# Stage: é😀x: b\n", false},
		{"two edits, second sees the first", []Change{
			{Range: pr(1, 0, 1, 0), Text: "ab"},
			{Range: pr(1, 2, 1, 3), Text: "Z"},
		}, "# Stage: é😀x\nabZук: b\n", false},
		{"whole text then a range", []Change{{Text: "héllo\n"}, {Range: pr(0, 5, 0, 5), Text: "!"}}, "héllo!\n", false},
		{"column past the end clamps", []Change{{Range: pr(1, 99, 1, 99), Text: "+"}}, "# Stage: é😀x\nЖук: b+\n", false},
		{"line past the end", []Change{{Range: pr(7, 0, 7, 0), Text: "x"}}, "", true},
		{"range backwards", []Change{{Range: pr(1, 3, 1, 1), Text: "x"}}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore()
			s.Open("/w/a.md", "file:///w/a.md", 1, []byte(start))
			d, err := s.Apply("/w/a.md", 2, tt.changes)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("want an error, got %q", d.Text)
				}
				if got, _ := s.Get("/w/a.md"); string(got.Text) != start || got.Version != 1 {
					t.Errorf("a refused change altered the document: %q v%d", got.Text, got.Version)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(d.Text) != tt.want {
				t.Errorf("text = %q, want %q", d.Text, tt.want)
			}
			if d.URI != "file:///w/a.md" || d.Version != 2 {
				t.Errorf("uri/version = %s/%d", d.URI, d.Version)
			}
			// The cached mapper must describe the new text.
			if n := d.Mapper().LineCount(); n != NewMapper(d.Text).LineCount() {
				t.Errorf("mapper has %d lines, text has %d", n, NewMapper(d.Text).LineCount())
			}
		})
	}
}

func TestStoreVersionsAndSnapshots(t *testing.T) {
	s := NewStore()
	if _, err := s.Apply("/w/a.md", 2, nil); err == nil {
		t.Error("change to a document that is not open: want error")
	}
	s.Open("/w/a.md", "file:///w/a.md", 5, []byte("one"))
	snap := s.Snapshot()
	if _, err := s.Apply("/w/a.md", 5, []Change{{Text: "same version"}}); err == nil {
		t.Error("same version: want error")
	}
	if _, err := s.Apply("/w/a.md", 6, []Change{{Text: "two"}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := snap.ReadFile("/w/a.md"); string(b) != "one" {
		t.Errorf("snapshot changed with the store: %q", b)
	}
	if b, _ := s.Snapshot().ReadFile("/w/a.md"); string(b) != "two" {
		t.Errorf("new snapshot = %q", b)
	}
	g := s.Generation()
	s.Close("/w/a.md")
	if s.Generation() == g {
		t.Error("close did not advance the generation")
	}
	if len(s.Paths()) != 0 {
		t.Errorf("paths after close: %v", s.Paths())
	}
}

func TestSnapshotOverlaysDisk(t *testing.T) {
	dir := t.TempDir()
	onDisk := filepath.Join(dir, "disk.md")
	if err := os.WriteFile(onDisk, []byte("on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	unsaved := filepath.Join(dir, "new.md")
	s := NewStore()
	s.Open(unsaved, "file://"+unsaved, 1, []byte("unsaved buffer"))
	s.Open(onDisk, "file://"+onDisk, 1, []byte("edited"))
	disk, err := workspace.OpenRoot(dir, workspace.RootOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	snap := s.Snapshot().Over(disk)
	tests := []struct {
		path, want string
		size       int64
	}{
		{unsaved, "unsaved buffer", 14},
		{onDisk, "edited", 6},
	}
	for _, tt := range tests {
		b, err := snap.ReadFile(tt.path)
		if err != nil || string(b) != tt.want {
			t.Errorf("ReadFile(%s) = %q, %v", tt.path, b, err)
		}
		info, err := snap.Stat(tt.path)
		if err != nil || info.Size() != tt.size || info.IsDir() {
			t.Errorf("Stat(%s) = %v, %v", tt.path, info, err)
		}
	}
	if _, err := snap.Stat(filepath.Join(dir, "absent.md")); !os.IsNotExist(err) {
		t.Errorf("absent file: err = %v", err)
	}
	s.Close(onDisk)
	if b, _ := s.Snapshot().Over(disk).ReadFile(onDisk); string(b) != "on disk" {
		t.Errorf("after close = %q, want the disk's text", b)
	}
}
