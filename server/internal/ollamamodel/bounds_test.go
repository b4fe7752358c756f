package ollamamodel

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// finishes runs f and fails the test if it has not returned within d.
func finishes(t *testing.T, d time.Duration, what string, f func()) bool {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		t.Errorf("%s did not finish within %s", what, d)
		return false
	}
}

// TestTemplateRenderIsBounded: a chat template that loops without end,
// writes without end or calls itself out of bounds fails to render
// (counting then falls back to an estimate) within its limits, and never
// holds more than the output cap. Failed before: each rendered to the
// end, without a bound on time or output ({{range 3000000000}} took
// probe to 16.8 GB).
func TestTemplateRenderIsBounded(t *testing.T) {
	chain := ""
	for i := range 26 {
		chain += `{{define "t` + itoa(i) + `"}}{{template "t` + itoa(i+1) + `" .}}{{template "t` + itoa(i+1) + `" .}}{{end}}`
	}
	chain += `{{define "t26"}}{{end}}`
	cases := map[string]string{
		"a loop that writes nothing":    `{{range 100000000}}{{end}}{{range .Messages}}{{.Content}}{{end}}`,
		"a loop that writes":            `{{range .Messages}}{{range 20000000}}0123456789{{end}}{{end}}`,
		"calls that fan out":            chain + `{{range .Messages}}{{.Content}}{{end}}{{template "t0" .}}`,
		"one request written 100 times": `{{range .Messages}}` + strings.Repeat("{{.Content}}", 100) + `{{end}}`,
	}
	big := strings.Repeat("a line of the request\n", 24000) // 528 KB
	for name, tmpl := range cases {
		t.Run(name, func(t *testing.T) {
			m, err := Load(mustFind(t, fakePull(t, "tiny", tmpl, "")))
			if err != nil {
				return // refused when loaded: as good as refused when rendered
			}
			var perr error
			var held uint64
			if !finishes(t, time.Minute, "rendering", func() {
				held = peakHeap(func() {
					_, perr = m.Prompt(&api.ChatRequest{Messages: []api.Message{{Role: "user", Content: big}}})
				})
			}) {
				return
			}
			if perr == nil {
				t.Errorf("the template rendered")
			}
			if held > 3*maxPromptBytes { // the output and the prompt made of it
				t.Errorf("rendering held %d MB", held>>20)
			}
		})
	}
	// A legacy template (no .Messages) that loops is refused when loaded:
	// the server renders it in parts this package cannot bound.
	if _, err := Load(mustFind(t, fakePull(t, "tiny", `{{ .System }}{{range 100000000}}{{end}}{{ .Prompt }}`, ""))); err == nil {
		t.Errorf("a legacy template with a loop was loaded")
	}
	// A template as real ones are renders as before.
	m, err := Load(mustFind(t, fakePull(t, "tiny", `{{- range $i, $m := .Messages }}{{ if eq $m.Role "user" }}<|im_start|>user
{{ $m.Content }}<|im_end|>{{ end }}{{ range $.Tools }}{{ .Function.Name }}{{ end }}{{ end }}`, "")))
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Prompt(&api.ChatRequest{Messages: []api.Message{{Role: "user", Content: "hi"}}})
	if err != nil || p != "<|im_start|>user\nhi<|im_end|>" {
		t.Errorf("a real template: %q, %v", p, err)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func mustFind(t *testing.T, dir string) *Files {
	t.Helper()
	f, err := Find([]string{dir}, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// peakHeap samples the heap in use while f runs and returns the highest
// figure seen above where it started.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base.HeapAlloc && m.HeapAlloc-base.HeapAlloc > peak {
				peak = m.HeapAlloc - base.HeapAlloc
			}
			select {
			case <-stop:
				done <- peak
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	return <-done
}

// TestModelFilesAreReadOnlyAsRegularFiles: a manifest, or a layer it
// names, that is a named pipe is refused at once, as workspace files are;
// so is a manifest larger than any. Failed before: probe (and every
// count) blocked for ever in open(2) on the pipe.
func TestModelFilesAreReadOnlyAsRegularFiles(t *testing.T) {
	dir := fakePull(t, "tiny", "{{ .Prompt }}", "Be brief.")
	manifest := filepath.Join(dir, "manifests", "registry.ollama.ai", "library", "tiny", "latest")
	f, err := Find([]string{dir}, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	fifo := func(path string) {
		t.Helper()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		t.Cleanup(func() { // a reader stuck in open(2) is freed at the end
			if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		})
	}
	fifo(f.System)
	var lerr error
	if finishes(t, 20*time.Second, "loading a model whose system prompt is a pipe", func() { _, lerr = Load(f) }) && (lerr == nil || !strings.Contains(lerr.Error(), "not a regular file")) {
		t.Errorf("Load: %v", lerr)
	}
	fifo(manifest)
	var ferr error
	if finishes(t, 20*time.Second, "finding a model whose manifest is a pipe", func() { _, ferr = Find([]string{dir}, "tiny") }) && (ferr == nil || !strings.Contains(ferr.Error(), "not a regular file")) {
		t.Errorf("Find: %v", ferr)
	}
	other := fakePull(t, "tiny", "{{ .Prompt }}", "")
	big := filepath.Join(other, "manifests", "registry.ollama.ai", "library", "tiny", "latest")
	if err := os.WriteFile(big, []byte(`{"layers":[`+strings.Repeat(" ", 2<<20)+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Find([]string{other}, "tiny"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a 2 MB manifest: %v", err)
	}
}

// sparseVocabulary writes a GGUF file whose header claims n tokens, all
// empty, over a hole: a few kilobytes on disk, any size in name.
func sparseVocabulary(t testing.TB, path string, n uint64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := func(v any) {
		if err := binary.Write(f, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	str := func(s string) { w(uint64(len(s))); _, _ = f.WriteString(s) }
	_, _ = f.WriteString("GGUF")
	w(uint32(3))
	w(uint64(0)) // tensors
	w(uint64(5)) // metadata entries
	for _, kv := range [][2]string{{"general.architecture", "llama"}, {"tokenizer.ggml.model", "gpt2"}, {"tokenizer.ggml.pre", "default"}} {
		str(kv[0])
		w(uint32(ggufString))
		str(kv[1])
	}
	str("tokenizer.ggml.tokens")
	w(uint32(ggufArray))
	w(uint32(ggufString))
	w(n)
	if _, err := f.Seek(int64(n)*8, io.SeekCurrent); err != nil { // n empty strings: a hole
		t.Fatal(err)
	}
	str("tokenizer.ggml.token_type")
	w(uint32(ggufArray))
	w(uint32(ggufInt32))
	w(n)
	end, err := f.Seek(int64(n)*4, io.SeekCurrent)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(end); err != nil {
		t.Fatal(err)
	}
}

// TestSparseVocabularyIsRefused: a GGUF file of a few kilobytes whose
// header claims 16M empty tokens over a hole is refused while its header
// is checked: nothing is allocated for the tokens, and no count is made
// with them (counting falls back to an estimate). Failed before: the
// header passed its bounds and loading the vocabulary took 1.2 GB; the
// counts made with it were called exact.
func TestSparseVocabularyIsRefused(t *testing.T) {
	dir := fakePull(t, "tiny", "{{ .Prompt }}", "")
	f := mustFind(t, dir)
	if err := os.Remove(f.Model); err != nil {
		t.Fatal(err)
	}
	sparseVocabulary(t, f.Model, 1<<24)
	var err error
	held := peakHeap(func() { _, err = Load(f) })
	if !errors.Is(err, errHeader) {
		t.Errorf("Load: %v, want the header refused", err)
	}
	if held > 64<<20 {
		t.Errorf("refusing it held %d MB", held>>20)
	}
}
