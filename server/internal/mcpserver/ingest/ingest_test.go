package ingest

import (
	"bytes"
	"context"
	"fmt"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/icm-tool/icm/server/internal/fetch"
	"github.com/icm-tool/icm/server/internal/testutil/need"
	"github.com/icm-tool/icm/server/internal/workspace"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var repoFiles = map[string]string{
	".gitignore":        "build/\n*.log\n",
	"README.md":         "# Demo\n\nA tiny tool.\n",
	"main.py":           "print('demo')\n",
	"app.log":           "noise\n",
	"build/out.txt":     "generated\n",
	"pkg/.gitignore":    "secret.txt\n",
	"pkg/secret.txt":    "do not read\n",
	"pkg/lib.py":        "def f():\n    return 1\n",
	"assets/logo.png":   "\x89PNG\r\n\x1a\n\x00\x00\x00binary",
	"docs/long.md":      strings.Repeat("long line of text\n", 2000),
	".git/config":       "[core]\n",
	"node_modules/x.js": "x\n",
}

func TestDigestHonoursGitignoreAndSkipsBinaries(t *testing.T) {
	root := t.TempDir()
	write(t, root, repoFiles)
	d, err := DigestDir(root, "demo", Limits{MaxChars: 20000, MaxFileChars: 1000, MaxFiles: 100})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "README.md", "docs/long.md", "main.py", "pkg/.gitignore", "pkg/lib.py"}
	if strings.Join(d.Files, ",") != strings.Join(want, ",") {
		t.Errorf("files %v, want %v", d.Files, want)
	}
	if d.Skipped["assets/logo.png"] != "binary" {
		t.Errorf("skipped %v", d.Skipped)
	}
	for _, bad := range []string{"noise", "generated", "do not read", "[core]"} {
		if strings.Contains(d.Text, bad) {
			t.Errorf("the digest holds %q", bad)
		}
	}
	if !strings.Contains(d.Text, "Directory structure:\ndemo/\n") || !strings.Contains(d.Text, "File: pkg/lib.py") || !strings.Contains(d.Text, "more characters not shown") {
		t.Errorf("digest:\n%s", d.Text[:min(len(d.Text), 1500)])
	}
	// The digest cap holds.
	small, _ := DigestDir(root, "demo", Limits{MaxChars: 600, MaxFileChars: 1000, MaxFiles: 100})
	if !small.Truncated || len(small.Text) > 1200 {
		t.Errorf("capped digest: truncated=%v len=%d", small.Truncated, len(small.Text))
	}
}

// minimalPDF builds a one-page PDF that shows text.
func minimalPDF(text string) []byte {
	stream := fmt.Sprintf("BT /F1 24 Tf 72 720 Td (%s) Tj ET", text)
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

func TestReadFile(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"notes.md":  "# Notes\n\nPlain.\n",
		"page.html": "<html><head><title>Guide</title></head><body><nav>menu menu</nav><article><h1>Guide</h1><p>The server listens on port 11434 by default, which is a fact worth keeping in the notes for later.</p><p>Another paragraph with enough words to count as content for the reader.</p></article></body></html>",
		"paper.pdf": string(minimalPDF("Hello from a PDF")),
		"blob.bin":  "\x00\x01\x02",
	})
	for _, tc := range []struct{ file, want string }{
		{"notes.md", "Plain."},
		{"page.html", "port 11434"},
		{"paper.pdf", "Hello from a PDF"},
	} {
		got, err := readFile(filepath.Join(root, tc.file), 0)
		if err != nil || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q %v", tc.file, got, err)
		}
	}
	if _, err := readFile(filepath.Join(root, "blob.bin"), 0); err == nil {
		t.Error("a binary file was read as text")
	}
	if _, err := readFile(filepath.Join(root, "broken.pdf"), 0); err == nil {
		t.Error("a missing file was read")
	}
	os.WriteFile(filepath.Join(root, "broken.pdf"), []byte("%PDF-1.4 garbage"), 0o644)
	if _, err := readFile(filepath.Join(root, "broken.pdf"), 0); err == nil {
		t.Error("a broken PDF was read")
	}
}

func TestLocalPathsStayInside(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write(t, root, map[string]string{"in.md": "inside"})
	write(t, outside, map[string]string{"secret.md": "outside"})
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	d := Deps{Root: root}
	ws, err := d.open()
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, p := range []string{"../" + filepath.Base(outside) + "/secret.md", "/etc/passwd", "link/secret.md"} {
		if _, err := d.local(ws, p); err == nil {
			t.Errorf("%s was allowed", p)
		}
	}
	if _, err := d.local(ws, "in.md"); err != nil {
		t.Error(err)
	}
}

// gitServer serves a repository over git's smart HTTP protocol on loopback.
func gitServer(t *testing.T) string {
	t.Helper()
	git := need.Program(t, "git")
	out, err := exec.Command(git, "--exec-path").Output()
	if err != nil {
		t.Skip(err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	work, bare := t.TempDir(), t.TempDir()
	write(t, work, repoFiles)
	os.RemoveAll(filepath.Join(work, ".git"))
	run := func(dir string, args ...string) {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	run(work, "init", "-q", "-b", "main")
	run(work, "add", "-A")
	run(work, "commit", "-q", "-m", "one")
	run(bare, "clone", "-q", "--bare", work, filepath.Join(bare, "demo.git"))
	srv := httptest.NewServer(&cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + bare, "GIT_HTTP_EXPORT_ALL=1"}})
	t.Cleanup(srv.Close)
	return srv.URL + "/demo.git"
}

func cloner(t *testing.T, allow []string) *Cloner {
	pol, err := fetch.NewPolicy(allow)
	if err != nil {
		t.Fatal(err)
	}
	p, err := fetch.StartProxy(&fetch.Dialer{Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return &Cloner{Proxy: p}
}

func TestShallowClone(t *testing.T) {
	u := gitServer(t)
	// Loopback is refused unless allowed, however the URL is written.
	refused := cloner(t, nil)
	for _, bad := range []string{u, "file:///etc", "ssh://git@example.com/x.git", "ext::sh -c id"} {
		if _, _, err := refused.Clone(context.Background(), bad); err == nil {
			t.Errorf("%s was cloned", bad)
		}
	}
	c := cloner(t, []string{"127.0.0.1"})
	dir, cleanup, err := c.Clone(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	out, _ := exec.Command("git", "-C", dir, "rev-list", "--count", "HEAD").Output()
	if strings.TrimSpace(string(out)) != "1" {
		t.Errorf("history depth %q", out)
	}
	d, err := DigestDir(dir, "demo", DefaultLimits)
	if err != nil || !strings.Contains(d.Text, "File: main.py") || strings.Contains(d.Text, "noise") {
		t.Errorf("digest of the clone: %v\n%s", err, d.Text)
	}
}

// Case 8 (ingest): a file is read only as far as the cap needs. A 256 MB
// file costs a few KB whether it is ingested alone or as part of a
// repository digest, and the text says how much was left out.
func TestIngestStopsReadingAtItsCap(t *testing.T) {
	root := t.TempDir()
	head := strings.Repeat("a line of text\n", 1000)
	write(t, root, map[string]string{"big.txt": head, "repo/big.md": head})
	for _, name := range []string{"big.txt", "repo/big.md"} {
		if err := os.Truncate(filepath.Join(root, name), 256<<20); err != nil {
			t.Fatal(err)
		}
	}
	lim := Limits{MaxChars: 60000, MaxFileChars: 4000, MaxFiles: 10}
	_, files := FilesTool(Deps{Root: root, Limits: lim})
	var req mcp.CallToolRequest
	req.Params.Arguments = map[string]any{"paths": []any{"big.txt"}, "max_chars": 4000}
	var res *mcp.CallToolResult
	var err error
	if grew := allocated(func() { res, err = files(context.Background(), req) }); grew > 16<<20 {
		t.Errorf("ingest_files allocated %d MB for a 256 MB file capped at 4000 characters", grew>>20)
	}
	if err != nil || res.IsError || !strings.Contains(resultText(res), "more characters not shown") {
		t.Errorf("ingest_files: %v %s", err, resultText(res))
	}
	var dg *Digest
	if grew := allocated(func() { dg, err = DigestDir(filepath.Join(root, "repo"), "repo", lim) }); grew > 16<<20 {
		t.Errorf("the digest allocated %d MB for a 256 MB file capped at 4000 characters", grew>>20)
	}
	if err != nil || !strings.Contains(dg.Text, "more characters not shown") {
		t.Errorf("digest: %v\n%.500s", err, dg.Text)
	}
}

// allocated returns the bytes f allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func resultText(r *mcp.CallToolResult) string {
	if r == nil {
		return "(no result)"
	}
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// readFile reads one local file as the server reads a file of its
// folder (readIn), for the tests.
func readFile(p string, max int) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	root, err := workspace.OpenRoot(filepath.Dir(abs), workspace.RootOptions{ReadOnly: true, MaxRead: maxWholeFile})
	if err != nil {
		return "", err
	}
	defer root.Close()
	return readIn(root, filepath.Base(abs), max)
}
