package codecheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/sandbox"
	"github.com/icm-tool/icm/server/internal/testutil/need"
	"github.com/icm-tool/icm/server/internal/verify"
)

func doc(blocks ...string) string {
	var b strings.Builder
	b.WriteString("# Article\n\nIntro.\n")
	for _, bl := range blocks {
		b.WriteString("\n" + bl + "\n")
	}
	return b.String()
}

func fence(info, code string) string { return "```" + info + "\n" + code + "```" }

func checker() *Checker {
	return &Checker{Limits: sandbox.Limits{Timeout: 5 * time.Second}}
}

func TestCheckPython(t *testing.T) {
	needSandbox(t)
	for _, tc := range []struct {
		name, info, code string
		run              bool
		ok, parsed, ran  bool
		errHas           string
		errLine          int // line within the block (1-based); 0 = do not check
	}{
		{"runs", "python", "print('hello')\n", true, true, true, true, "", 0},
		{"syntax error", "python", "x = 1\ndef f(:\n    pass\n", true, false, false, false, "SyntaxError", 2},
		{"runtime error", "python", "a = 1\nprint(b)\n", true, false, true, true, "NameError: name 'b' is not defined", 2},
		{"parse only", "python", "print(b)\n", false, true, true, false, "", 0},
		{"no-run", "python no-run", "import requests\nrequests.get('https://example.com')\n", true, true, true, false, "", 0},
		{"exit status", "py", "import sys\nsys.exit(4)\n", true, false, true, true, "exited with status 4", 0},
		{"timeout", "python", "import time\ntime.sleep(60)\n", true, false, true, true, "did not finish within", 0},
		{"no third-party modules", "python", "import requests\n", true, false, true, true, "ModuleNotFoundError", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(doc(fence(tc.info, tc.code)))
			b := Extract(src)[0]
			r := checker().CheckBlock(context.Background(), b, tc.run)
			if r.OK != tc.ok || r.Parsed != tc.parsed || r.Ran != tc.ran || !strings.Contains(r.Error, tc.errHas) {
				t.Fatalf("result %+v", r)
			}
			if tc.errLine > 0 && r.ErrorLine != b.CodeLine+tc.errLine-1 {
				t.Errorf("error line %d, want %d (block starts at %d)", r.ErrorLine, b.CodeLine+tc.errLine-1, b.CodeLine)
			}
		})
	}
}

func TestCheckGo(t *testing.T) {
	needSandbox(t)
	_, err := systemTool("", "go")
	need.Check(t, "go", err)
	for _, tc := range []struct {
		name, code      string
		ok, parsed, ran bool
		errHas          string
		errLine         int
	}{
		{"program", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n", true, true, true, "", 0},
		{"compile error", "package main\n\nfunc main() {\n\tundefinedThing()\n}\n", false, true, false, "undefined: undefinedThing", 4},
		{"parse error", "package main\n\nfunc main() {\n\tx := \n}\n", false, false, false, "expected operand", 5},
		{"fragment", "x := 1\nfmt.Println(x)\n", true, true, false, "", 0},
		{"panic", "package main\n\nfunc main() {\n\tvar m map[string]int\n\tm[\"a\"] = 1\n}\n", false, true, true, "panic: assignment to entry in nil map", 5},
		{"no downloads", "package main\n\nimport \"example.com/nowhere/pkg\"\n\nfunc main() { pkg.Do() }\n", false, true, false, "GOPROXY=off", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(doc(fence("go", tc.code)))
			b := Extract(src)[0]
			r := checker().CheckBlock(context.Background(), b, true)
			if r.OK != tc.ok || r.Parsed != tc.parsed || r.Ran != tc.ran || !strings.Contains(r.Error, tc.errHas) {
				t.Fatalf("result %+v", r)
			}
			if tc.errLine > 0 && r.ErrorLine != b.CodeLine+tc.errLine-1 {
				t.Errorf("error line %d, want %d", r.ErrorLine, b.CodeLine+tc.errLine-1)
			}
		})
	}
}

func TestVerifyFindings(t *testing.T) {
	needSandbox(t)
	src := doc(fence("python", "print('ok')\n"), fence("sh", "rm -rf /\n"), fence("python", "1/0\n"))
	p := filepath.Join(t.TempDir(), "article.md")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var cc verify.CodeChecker = checker()
	fs, err := cc.Check(context.Background(), verify.Output{Rel: "out/article.md", Abs: p}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Line != 14 || !strings.Contains(fs[0].Message, "ZeroDivisionError") || !strings.Contains(fs[0].Message, "python block 3") {
		t.Fatalf("findings %+v", fs)
	}
	// Parse only: the same document passes.
	if fs, _ := cc.Check(context.Background(), verify.Output{Rel: "a", Abs: p}, false); len(fs) != 0 {
		t.Errorf("parse-only findings %+v", fs)
	}
}

func TestParseOutsideTheSandbox(t *testing.T) {
	_, err := systemTool("", "python3")
	need.Check(t, "python3", err)
	for _, tc := range []struct {
		code string
		ok   bool
	}{{"print('x')\n", true}, {"def f(:\n", false}} {
		res, err := parseOutside(context.Background(), "/usr/bin/python3", tc.code, []string{"PATH=/usr/bin:/bin"})
		if err != nil {
			t.Fatal(err)
		}
		if st := res.Step("parse"); st.OK() != tc.ok || (!tc.ok && !strings.Contains(st.Stdout, "ICM-PARSE line 1: SyntaxError")) {
			t.Errorf("%q: %+v", tc.code, st)
		}
	}
}
