package schemas

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const library = "github.com/santhosh-tekuri/jsonschema/v6"

// No Go file of the project, tests included, makes a compiler of the
// JSON Schema library but this package: a compiler made anywhere else
// would load references with the library's own loader, which opens any
// file of the machine.
func TestOnlyThisPackageMakesACompiler(t *testing.T) {
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(here, "..", "..")
	var checked int
	err = filepath.WalkDir(server, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "node_modules" || (strings.HasPrefix(d.Name(), ".") && p != server) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || filepath.Dir(p) == here {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(src, []byte(library)) {
			return err
		}
		checked++
		rel, _ := filepath.Rel(server, p)
		for _, use := range compilerUses(t, p, src) {
			t.Errorf("server/%s:%d makes a JSON Schema compiler (%s): compile through package schemas (Compile, CompileIn), which loads nothing outside", filepath.ToSlash(rel), use.line, use.what)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no file outside this package imports the library: the walk found nothing to check")
	}
}

type use struct {
	line int
	what string
}

// compilerUses lists where the file src names the library's compiler or
// its loaders (NewCompiler, Compiler, FileLoader, SchemeURLLoader,
// URLLoader), through whatever name it imports the library by; a dot
// import counts as a use.
func compilerUses(t *testing.T, path string, src []byte) []use {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []use
	names := map[string]bool{}
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p != library {
			continue
		}
		switch {
		case imp.Name == nil:
			names["jsonschema"] = true
		case imp.Name.Name == ".":
			out = append(out, use{fset.Position(imp.Pos()).Line, "a dot import of the library"})
		default:
			names[imp.Name.Name] = true
		}
	}
	forbidden := map[string]bool{"NewCompiler": true, "Compiler": true, "FileLoader": true, "SchemeURLLoader": true, "URLLoader": true}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && names[x.Name] && forbidden[sel.Sel.Name] {
			out = append(out, use{fset.Position(sel.Pos()).Line, x.Name + "." + sel.Sel.Name})
		}
		return true
	})
	return out
}
