package trust_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// pins is the pins in one line each: "content pipeline/01-a/build.sh",
// "path sh".
func pins(ps []trust.Pin) string {
	var out []string
	for _, p := range ps {
		what := p.File
		if what == "" {
			what = p.Word
		}
		out = append(out, string(p.How)+" "+what)
	}
	return strings.Join(out, "; ")
}

// TestPinsReadCommandLinesAsTheShellDoes: each word of a command line is
// held as a shell would use it: the program on PATH by its name, a file
// of the workspace or its repository by its content (given to an
// interpreter, read as input, run from a command substitution or a
// shell's -c), a file icm's runs write as generated content, a launcher
// that fetches code as unpinnable, a program outside as its name.
func TestPinsReadCommandLinesAsTheShellDoes(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "elsewhere.sh")
	if err := os.WriteFile(outside, []byte("echo out\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	repo := wstest.Write(t, `
-- .git/HEAD --
ref: refs/heads/main
-- tools/shared.sh --
echo shared
-- ws/CLAUDE.md --
# Notes
-- ws/tools/x.py --
print(1)
-- ws/pipeline/01-a/CONTEXT.md --
# Stage: 01-a

## Process
Write.
-- ws/pipeline/01-a/build.sh --
echo build
-- ws/pipeline/01-a/out.sh.symlink --
`+outside+`
`)
	big := filepath.Join(repo, "ws", "pipeline", "01-a", "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(workspace.DefaultMaxRead + 1)
	f.Close()
	ws, err := workspace.Open(filepath.Join(repo, "ws"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	dir := filepath.Join(ws.Root, "pipeline", "01-a")
	for _, c := range []struct{ line, want string }{
		{"sh ./build.sh", "path sh; content pipeline/01-a/build.sh"},
		{"python3 ../../tools/x.py --input=../../tools/x.py --count 3", "path python3; content tools/x.py"},
		{"npx -y cowsay hi", "fetches npx"},
		{"pipx run black . && pipx install black", "fetches pipx; path pipx"},
		{`"$TOOL" build.sh`, "variable $TOOL; content pipeline/01-a/build.sh"},
		{`"$ICM_BIN" critique output/a.md --send-back ../02-b/notes.md -o=out.html`, "icm $ICM_BIN; generated pipeline/01-a/output/a.md; generated pipeline/02-b/notes.md; generated pipeline/01-a/out.html"},
		{"cat output/a.md | sh", "path cat; generated pipeline/01-a/output/a.md; path sh"},
		{"echo $(./build.sh) `sh build.sh`", "content pipeline/01-a/build.sh; path sh"},
		{"bash -ec './build.sh && make all'", "path bash; content pipeline/01-a/build.sh; path make"},
		{"./big.bin", "too-large pipeline/01-a/big.bin"},
		{"./out.sh; sh out.sh", "outside ./out.sh; path sh"},
		{outside + " --now", "outside " + outside},
		{"/usr/bin/env FOO=1 python3 x", "outside /usr/bin/env; path python3"},
		{"sh < build.sh; make > build.sh 2>&1", "path sh; content pipeline/01-a/build.sh; path make"},
		{"sh ../../../tools/shared.sh", "path sh; content /tools/shared.sh"},
		{"cat <<EOF\n./build.sh\nEOF\n./missing.sh # ./build.sh", "path cat"},
		{"if test -f x; then exec make site; fi", "path make"},
		{"MODE=fast sh 'build.sh'", "path sh; content pipeline/01-a/build.sh"},
		{"for f in build.sh x; do sh \"$f\"; done; case x in a) make;; esac", "content pipeline/01-a/build.sh; path sh; path make"},
	} {
		if got := pins(trust.Shell(ws, dir, c.line)); got != c.want {
			t.Errorf("%q pins\n  %s\nwant\n  %s", c.line, got, c.want)
		}
	}
	if got := pins(trust.Argv(ws, ws.Root, []string{"node", "tools/x.py", "${workspaceFolder}/tools/x.py"})); got != "path node; content tools/x.py" {
		t.Errorf("a tool server's argv pins %s", got)
	}
	if got := pins(trust.Argv(ws, ws.Root, []string{"icm", "mcp", "search"})); got != "icm icm" {
		t.Errorf("icm's own server pins %s", got)
	}
}
