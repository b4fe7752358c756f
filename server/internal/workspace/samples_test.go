package workspace

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// The two course workspaces share every contract ("configure the factory,
// not the product"): they differ in exactly the audience profile and the
// one-line idea. Stage test cases are left out: they belong to a product
// (their stand-ins and expectations name its subject).
func TestCourseWorkspacesDifferInTwoFiles(t *testing.T) {
	root := filepath.Join("..", "..", "..", "workspaces")
	files := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			if d.IsDir() && (d.Name() == ".icm" || rel == HistoryDir || d.Name() == "tests" && filepath.Base(filepath.Dir(filepath.Dir(p))) == "pipeline") {
				return filepath.SkipDir
			}
			if d.IsDir() || filepath.Base(filepath.Dir(p)) == OutputDir && d.Name() != ".gitkeep" {
				return nil
			}
			data, err := os.ReadFile(p)
			out[filepath.ToSlash(rel)] = data
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := files(filepath.Join(root, "course-research")), files(filepath.Join(root, "course-rust"))
	var differ []string
	for name, data := range a {
		if other, ok := b[name]; !ok || !bytes.Equal(data, other) {
			differ = append(differ, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			differ = append(differ, name)
		}
	}
	sort.Strings(differ)
	want := []string{"_config/audience.md", "pipeline/01-scope/input.md"}
	if len(differ) != 2 || differ[0] != want[0] || differ[1] != want[1] {
		t.Errorf("the course workspaces differ in %v, want exactly %v", differ, want)
	}
}
