package schemas

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/workspace"
)

// write makes the files (name -> content) below dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A schema from memory refers to itself and to nothing else: a $ref
// within the document works, one to a file (even one that exists) or an
// address is a RefError naming it.
func TestCompileFromMemoryRefersOnlyToItself(t *testing.T) {
	sch, err := Compile("own.json", []byte(`{"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if sch.Validate(map[string]any{"a": "x"}) == nil {
		t.Error("the reference within the document is not followed")
	}
	real := filepath.Join(t.TempDir(), "s.json")
	write(t, filepath.Dir(real), map[string]string{"s.json": `{}`})
	for _, ref := range []string{"file://" + filepath.ToSlash(real), "s.json", "https://127.0.0.1:9/s.json"} {
		_, err := Compile("own.json", []byte(`{"$ref": "`+ref+`"}`))
		var re *RefError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "schema own.json line 1: $ref "+ref+" ") {
			t.Errorf("%s: %v", ref, err)
		}
	}
}

// A workspace's schema file follows references to schema files of the
// workspace, read through it, and refuses every other place before
// opening it, with the line of the reference: a file outside by path or
// by address, a $schema naming a file, a base moved out by $id, a link
// out, a file under .git, a web address.
func TestCompileInFollowsOnlyTheWorkspace(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, outside, map[string]string{"s.json": `{"type": "integer"}`})
	write(t, dir, map[string]string{
		"defs/str.json": `{"type": "string"}`,
		".git/s.json":   `{"type": "string"}`,
	})
	if err := os.Symlink(filepath.Join(outside, "s.json"), filepath.Join(dir, "defs/link.json")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	compile := func(src string) error {
		abs := filepath.Join(dir, "a/schema.json")
		write(t, dir, map[string]string{"a/schema.json": src})
		_, err := CompileIn(ws, abs, []byte(src))
		return err
	}
	if err := compile(`{"$ref": "../defs/str.json"}`); err != nil {
		t.Errorf("a schema of the workspace is not followed: %v", err)
	}
	outURL := "file://" + filepath.ToSlash(filepath.Join(outside, "s.json"))
	rel, _ := filepath.Rel(filepath.Join(dir, "a"), filepath.Join(outside, "s.json"))
	for _, tc := range []struct{ src, want string }{
		{"{\n\"$ref\": \"" + outURL + "\"}", "line 2: $ref " + outURL + " is outside the workspace"},
		{"{\"x\": 1,\n\"$ref\": \"" + filepath.ToSlash(rel) + "\"}", "line 2: $ref " + filepath.ToSlash(rel) + " is outside the workspace"},
		{`{"$schema": "` + outURL + `"}`, "line 1: $schema " + outURL + " is outside the workspace"},
		{`{"$id": "` + "file://" + filepath.ToSlash(outside) + `/", "$ref": "s.json"}`, "is outside the workspace"},
		{`{"$ref": "../defs/link.json"}`, "line 1: $ref ../defs/link.json leads outside the workspace"},
		{`{"$ref": "../.git/s.json"}`, "lies in a .git folder"},
		{`{"$ref": "http://127.0.0.1:9/s.json"}`, "is a web address, and icm loads no schema from the network"},
		{`{"$ref": "ftp://127.0.0.1/s.json"}`, "is not a file of the workspace"},
		{`{"$ref": "file://elsewhere` + filepath.ToSlash(filepath.Join(dir, "defs/str.json")) + `"}`, "is not a file of the workspace"},
		{`{"$ref": "../defs/none.json"}`, "$ref ../defs/none.json cannot be read"},
	} {
		err := compile(tc.src)
		var re *RefError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "schema a/schema.json") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a RefError with %q", tc.src, err, tc.want)
		}
	}
}

// The files one schema loads share one read cap, the workspace's: a chain
// of references to files each under the cap stops once they pass it
// together.
func TestReferencedFilesShareTheReadCap(t *testing.T) {
	dir := t.TempDir()
	pad := strings.Repeat(" ", 600<<10)
	write(t, dir, map[string]string{
		"config.toml": "[workflow]\nmax_file_size = \"1MB\"\n",
		"a.json":      `{"$ref": "b.json"}` + pad,
		"b.json":      `{"$ref": "c.json"}` + pad,
		"c.json":      `{"type": "string"}` + pad,
	})
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.Disk.MaxRead() != 1<<20 {
		t.Fatalf("read cap %d, want 1 MB", ws.Disk.MaxRead())
	}
	raw, err := ws.Files.ReadFile(filepath.Join(dir, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = CompileIn(ws, filepath.Join(dir, "a.json"), raw)
	if err == nil || !strings.Contains(err.Error(), "c.json takes the schema's files past") {
		t.Errorf("three files of 600 KB under a cap of 1 MB: %v", err)
	}
}

// A schema that is not JSON Schema says so, by its name, not its address.
func TestInvalidSchemaNamesItsFile(t *testing.T) {
	dir := t.TempDir()
	ws, err := workspace.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_, err = CompileIn(ws, filepath.Join(dir, "s.json"), []byte(`{"type": 5}`))
	if err == nil || !strings.HasPrefix(err.Error(), "schema s.json is not valid: ") || strings.Contains(err.Error(), "file://") {
		t.Errorf("%v", err)
	}
}
