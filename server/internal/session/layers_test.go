package session

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestLayersImportDownward: docs/architecture.md's table of parts, from
// the bottom up, is the rule. A package may import packages of its own
// layer or of a layer below it, never above; a package the table does
// not place fails too, so a new one is placed (and its layer decided)
// before anything may import it. The table and the code cannot drift:
// the test reads the table.
func TestLayersImportDownward(t *testing.T) {
	const mod = "github.com/icm-tool/icm/server/internal/"
	layers := architectureLayers(t)
	out, err := exec.CommandContext(t.Context(), "go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../...").Output()
	if err != nil {
		t.Fatal(err)
	}
	var unplaced []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		from, ok := layerOf(layers, pkg)
		if !ok {
			unplaced = append(unplaced, pkg)
			continue
		}
		for _, imp := range f[1:] {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			dep := strings.TrimPrefix(imp, mod)
			to, ok := layerOf(layers, dep)
			if ok && to.index > from.index {
				t.Errorf("%s (%s) imports %s (%s), a layer above it", pkg, from.name, dep, to.name)
			}
		}
	}
	sort.Strings(unplaced)
	for _, p := range unplaced {
		t.Errorf("%s is in no layer of docs/architecture.md's table: place it there", p)
	}
}

// layer is a row of the table.
type layer struct {
	name  string
	index int
	// pkgs are the row's packages; "x/..." stands for x and below it.
	pkgs []string
}

// architectureLayers reads the table under "The parts, from the bottom up".
func architectureLayers(t *testing.T) []layer {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "## The parts, from the bottom up")
	if start < 0 {
		t.Fatal("docs/architecture.md has no table of parts")
	}
	code := regexp.MustCompile("`([^`]+)`")
	var out []layer
	for _, l := range strings.Split(doc[start:], "\n")[1:] {
		if strings.HasPrefix(l, "## ") {
			break
		}
		cells := strings.Split(l, "|")
		if len(cells) < 4 || strings.TrimSpace(cells[1]) == "layer" || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		ly := layer{name: strings.TrimSpace(cells[1]), index: len(out)}
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			ly.pkgs = append(ly.pkgs, m[1])
		}
		out = append(out, ly)
	}
	if len(out) < 5 {
		t.Fatalf("docs/architecture.md's table of parts has %d rows", len(out))
	}
	return out
}

// layerOf finds the layer that places pkg: the row naming it, or naming
// a folder above it with "/...", or naming the package it is a
// sub-package of.
func layerOf(layers []layer, pkg string) (layer, bool) {
	best, bestLen := layer{}, -1
	for _, ly := range layers {
		for _, p := range ly.pkgs {
			base := strings.TrimSuffix(p, "/...")
			if (pkg == base || strings.HasPrefix(pkg, base+"/")) && len(base) > bestLen {
				best, bestLen = ly, len(base)
			}
		}
	}
	return best, bestLen >= 0
}
