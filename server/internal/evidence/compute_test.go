package evidence

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from what the tests compute")

const exampleNotes = `# Notes

## Local runtimes

Ollama serves models over HTTP on port 11434 and keeps a model loaded for five minutes after its last request.

llama.cpp runs quantized GGUF files on the CPU and needs about 4 GB of memory for a 7B model at 4-bit.

## Licences

Both projects are released under the MIT licence.
`

const exampleOutput = "# Report\r\n\r\n## Runtimes\r\n\r\nOllama serves models over HTTP on port 11434 and keeps a model loaded for five minutes after its last request.\r\n\r\nThe Vulkan backend of llama.cpp doubles token throughput on integrated graphics, as the benchmark at https://bench.example/vulkan shows.\r\n\r\n- llama.cpp needs about 6 GB of memory for a 7B model at 4-bit.\r\n- Both are released under the MIT licence.\r\n\r\nSources: https://ollama.example/docs\r\n"

func exampleInput() Input {
	return Input{
		Path: "output/report.md",
		Text: []byte(exampleOutput),
		Sources: []Source{
			{Kind: SourceInput, Name: "notes.md", Text: []byte(exampleNotes)},
			{Kind: SourceTool, Name: "https://ollama.example/docs", URL: "https://ollama.example/docs", Tool: "fetch", CallID: "call_7", Text: []byte("Ollama's documentation.\n")},
		},
	}
}

func TestComputeExample(t *testing.T) {
	res := Compute(context.Background(), exampleInput(), Options{})
	var got []string
	for _, u := range res.Units {
		line := string(u.Kind) + " " + string(u.Status)
		for _, m := range u.Marks {
			line += " " + string(m.Kind) + ":" + m.Text
		}
		got = append(got, line)
		if exampleOutput[u.Range.Start:u.Range.End] != u.Text {
			t.Errorf("unit %q does not sit at its range in the output as given (CRLF)", u.Text)
		}
	}
	want := []string{
		"paragraph supported",
		"paragraph unsupported url_never_read:https://bench.example/vulkan",
		"item supported number:6",
		"item supported",
		"paragraph no_claim",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("units:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	first := res.Units[0]
	if first.Line != 5 || first.EndLine != 5 || strings.Join(first.Headings, "/") != "Report/Runtimes" {
		t.Errorf("first unit at line %d-%d under %q", first.Line, first.EndLine, first.Headings)
	}
	if len(first.Support) == 0 {
		t.Fatal("a copied paragraph lists what supports it")
	}
	p := first.Support[0]
	if p.Path != "notes.md › Notes › Local runtimes" || p.Line != 5 || p.SourceKind != SourceInput || !strings.HasPrefix(p.Text, "Ollama serves models") {
		t.Errorf("best passage: %+v", p)
	}
	if exampleNotes[p.Range.Start:p.Range.End] != p.Text {
		t.Errorf("passage %q is not at its range in the source", p.Text)
	}
	if res.Summary.Text != "3 of 4 parts supported · 1 URL never read · 1 number in no source" {
		t.Errorf("summary %q", res.Summary.Text)
	}
	if res.Partial || res.Method != "lexical" || res.Threshold != DefaultThreshold {
		t.Errorf("result: partial %v, method %q, threshold %v", res.Partial, res.Method, res.Threshold)
	}
}

// TestResultJSON keeps the shape front ends render in a golden file:
// it changes only on purpose (-update).
func TestResultJSON(t *testing.T) {
	res := Compute(context.Background(), exampleInput(), Options{})
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", "result.json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the result's JSON changed; if on purpose, run go test -run TestResultJSON -update and review the diff:\n%s", got)
	}
}

func TestNoSourcesSupportsNothing(t *testing.T) {
	res := Compute(context.Background(), Input{Text: []byte("A claim about orchards.\n")}, Options{})
	if len(res.Units) != 1 || res.Units[0].Status != Unsupported || res.Units[0].Score != 0 {
		t.Errorf("with no sources: %+v", res.Units)
	}
	if res.Summary.Text != "0 of 1 paragraph supported" {
		t.Errorf("summary %q", res.Summary.Text)
	}
}

func TestEmptyOutput(t *testing.T) {
	res := Compute(context.Background(), Input{Text: []byte("# Only a heading\n\n```\ncode\n```\n")}, Options{})
	if len(res.Units) != 0 || res.Summary.Text != "nothing to check" {
		t.Errorf("headings and code are no units: %+v %q", res.Units, res.Summary.Text)
	}
}
