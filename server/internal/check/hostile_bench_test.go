package check

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// hostileWorkspace writes a one-stage workspace whose contract is given,
// with input.md beside it, and returns its root.
func hostileWorkspace(b *testing.B, contractText string) string {
	root, _ := filepath.EvalSymlinks(b.TempDir())
	for rel, text := range map[string]string{
		"CLAUDE.md":                "# Identity\n",
		"pipeline/01-a/CONTEXT.md": contractText,
		"pipeline/01-a/input.md":   "The input.\n",
	} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// nestedContract is a contract whose Process is a list nested levels deep,
// padded with flat lines to about size bytes.
func nestedContract(levels, size int) string {
	var b strings.Builder
	b.WriteString("# Stage: 01-a\n\n## Inputs\n- Layer 4 (working): input.md\n\n## Process\n\n")
	for i := 0; i < levels; i++ {
		b.WriteString(strings.Repeat("  ", i) + "- level\n")
	}
	for b.Len() < size {
		b.WriteString("\nA line of prose that pads the contract to its size.\n")
	}
	b.WriteString("\n## Outputs\n- out.md -> output/\n")
	return b.String()
}

// checkOnce opens and checks the workspace at root.
func checkOnce(b *testing.B, root string) *Report {
	ws, err := workspace.Open(root, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	return Run(ws, Options{})
}

// BenchmarkCheckDeepContract is icm check on contracts built to be slow
// to parse (goal: under 100 ms for any contract under 1 MB): a 1 MB list
// nested 1,000 levels (refused for its size, unread), the deepest nesting
// parsed (63 levels) at the largest size parsed (64 KB), and 200 levels
// in 40 KB (refused for its depth).
func BenchmarkCheckDeepContract(b *testing.B) {
	for _, tc := range []struct {
		name          string
		levels, size  int
		wantFinding   string
		wantNoFinding bool
	}{
		{"1MB-1000-levels", 1000, 1 << 20, contract.CodeContractTooLarge, false},
		{"64KB-63-levels", markdownMax() - 1, contract.MaxContractBytes - 1024, "", true},
		{"40KB-200-levels", 200, 40 << 10, contract.CodeTooDeep, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			root := hostileWorkspace(b, nestedContract(tc.levels, tc.size))
			for b.Loop() {
				rep := checkOnce(b, root)
				found := false
				for _, f := range rep.Findings {
					found = found || f.Code == tc.wantFinding
					if tc.wantNoFinding && (f.Code == contract.CodeTooDeep || f.Code == contract.CodeContractTooLarge) {
						b.Fatalf("the largest contract within the limits was refused: %s", f)
					}
				}
				if !tc.wantNoFinding && !found {
					b.Fatalf("no %s finding", tc.wantFinding)
				}
			}
		})
	}
}

// BenchmarkCheckNestedSymlinks is icm check on an input reached through 8
// links nested in one folder, each naming the one before it eight times
// over (the old resolver walked 8^7 steps; resolution is now linear and
// stops at the link limit at once).
func BenchmarkCheckNestedSymlinks(b *testing.B) {
	root := hostileWorkspace(b, "# Stage: 01-a\n\n## Inputs\n- Layer 4 (working): links/l8/input.md\n\n## Process\nGo.\n\n## Outputs\n- out.md -> output/\n")
	links := filepath.Join(root, "pipeline/01-a/links")
	if err := os.MkdirAll(links, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.Symlink(".", filepath.Join(links, "l1")); err != nil {
		b.Fatal(err)
	}
	for i := 2; i <= 8; i++ {
		target := strings.TrimSuffix(strings.Repeat(fmt.Sprintf("l%d/", i-1), 8), "/")
		if err := os.Symlink(target, filepath.Join(links, fmt.Sprintf("l%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		rep := checkOnce(b, root)
		if !rep.HasErrors() {
			b.Fatal("the nested links were not reported")
		}
	}
}

// markdownMax is the deepest nesting the Markdown parser is given.
func markdownMax() int { return markdown.MaxNesting }

// BenchmarkCheckNestedConfig is icm check (opening the workspace, which
// reads config.toml, then its findings) on config.toml files built to be
// slow for the TOML library (goal: a 1 MB nested one is a finding in
// under 100 ms): 1 MB of inline tables nested 1,000 levels, repeated
// (refused for its size), 48 KB nested 4,000 levels (refused for its
// depth: it took 24 s and 4 GB before the check), and the largest file
// read (64 KB) holding the most entries read (1,024) at the deepest
// nesting read (8 levels), padded with comments.
func BenchmarkCheckNestedConfig(b *testing.B) {
	nested := func(levels, size int) string {
		one := strings.Repeat("{b = ", levels) + "1" + strings.Repeat("}", levels)
		var s strings.Builder
		for i := 0; s.Len()+len(one)+16 < size; i++ {
			fmt.Fprintf(&s, "k%d = %s\n", i, one)
		}
		return s.String()
	}
	widest := func() string {
		one := strings.Repeat("{b = ", config.MaxNesting-1) + "1" + strings.Repeat("}", config.MaxNesting-1)
		var s strings.Builder
		for i := 0; i < config.MaxEntries/config.MaxNesting; i++ {
			fmt.Fprintf(&s, "k%d = %s\n", i, one)
		}
		for s.Len()+80 < config.MaxFileBytes {
			s.WriteString("# " + strings.Repeat("pad ", 18) + "\n")
		}
		return s.String()
	}
	for _, tc := range []struct {
		name, text string
		finding    bool
	}{
		{"1MB-1000-levels", nested(1000, 1<<20), true},
		{"48KB-4000-levels", nested(4000, 48<<10), true},
		{"64KB-8-levels", widest(), false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			root := hostileWorkspace(b, "# Stage: 01-a\n\n## Process\nGo.\n\n## Outputs\n- out.md -> output/\n")
			if err := os.WriteFile(filepath.Join(root, config.FileName), []byte(tc.text), 0o644); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				rep := checkOnce(b, root)
				found := false
				for _, f := range rep.Findings {
					found = found || f.Code == config.ProblemBounds
				}
				if found != tc.finding {
					b.Fatalf("%d bytes: bounds finding %v, want %v", len(tc.text), found, tc.finding)
				}
			}
		})
	}
}
