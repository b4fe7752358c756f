package check

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

// A workspace's schemas, a Verify json-schema and a Model format, are
// checked as a run compiles them: a reference to a file outside, to a web
// address or to a named pipe is an error at the line that names the
// schema, saying where the reference is and what to do; a reference to a
// schema beside it, and one within the document, are fine; a schema that
// is no JSON Schema is an error too. Nothing outside is opened: the pipe
// outside would hold the check forever.
func TestSchemaFilesAreCheckedAsARunCompilesThem(t *testing.T) {
	outside := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(outside, "pipe.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	dir := wstest.Write(t, `
-- CLAUDE.md --
# Id
-- pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Model
format: format.json

## Process
Go.

## Outputs
- a.json -> output/

## Verify
- json-schema fine.json
- json-schema web.json
- json-schema out.json
- json-schema pipe.json
- json-schema wrong.json
-- pipeline/01-a/format.json --
{"$ref": "fine.json"}
-- pipeline/01-a/fine.json --
{"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s"}
-- pipeline/01-a/web.json --
{"type": "object",
 "properties": {"a": {"$ref": "https://127.0.0.1:9/s.json"}}}
-- pipeline/01-a/out.json --
{"$ref": "file://`+filepath.ToSlash(filepath.Join(outside, "pipe.json"))+`"}
-- pipeline/01-a/pipe.json --
{
  "items": {"$ref": "fifo.json"}
}
-- pipeline/01-a/wrong.json --
{"type": 5}
`)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipeline/01-a/fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(outside, "pipe.json"), filepath.Join(dir, "pipeline/01-a/fifo.json")} {
		t.Cleanup(func() {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		})
	}
	rep := Run(open(t, dir), Options{})
	src, err := os.ReadFile(filepath.Join(dir, "pipeline/01-a/CONTEXT.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Each finding keyed by the text it marks in the contract.
	got := map[string]contract.Finding{}
	for _, f := range rep.Findings {
		if f.Code == contract.CodeSchemaRef || f.Code == contract.CodeBadSchema {
			got[string(src[f.Range.Start:f.Range.End])] = f
		}
	}
	want := map[string][]string{
		"json-schema web.json":   {contract.CodeSchemaRef, "schema pipeline/01-a/web.json line 2: $ref https://127.0.0.1:9/s.json is a web address", "loads no schema from the network", "copy the schema it needs into the workspace"},
		"json-schema out.json":   {contract.CodeSchemaRef, "schema pipeline/01-a/out.json line 1: $ref file://", "is outside the workspace", "copy the schema it needs into the workspace"},
		"json-schema pipe.json":  {contract.CodeSchemaRef, "schema pipeline/01-a/pipe.json line 2: $ref fifo.json cannot be read", "is a named pipe (FIFO), not a regular file", "replace pipeline/01-a/fifo.json with a regular file"},
		"json-schema wrong.json": {contract.CodeBadSchema, "schema pipeline/01-a/wrong.json is not valid", "make it a JSON Schema"},
	}
	for at, parts := range want {
		f, ok := got[at]
		if !ok {
			t.Errorf("no schema finding on %q; findings: %v", at, rep.Findings)
			continue
		}
		if f.Code != parts[0] || f.Severity != contract.Error {
			t.Errorf("%s: %s [%s], want an error [%s]", at, f.Severity, f.Code, parts[0])
		}
		for _, p := range parts[1:] {
			if !strings.Contains(f.Message, p) {
				t.Errorf("%s: %q lacks %q", at, f.Message, p)
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d schema findings, want %d (format.json and fine.json are fine): %v", len(got), len(want), got)
	}
}
