package session

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// icmPrefix is the import path every package of icm's Go side starts with.
const icmPrefix = "github.com/icm-tool/icm/server/internal/"

// frontEnds are the packages that read a request and render an answer.
var frontEnds = []string{"cli", "lsp", "lsp/snapshot", "wsmcp"}

// enginePackages are the packages a front end may not import
// (TestFrontEndsImportOnlyTheSession) and so may not reach by any other
// road either.
var enginePackages = []string{"llm", "tools", "workflow", "stagetest", "telemetry", "agent"}

// TestNothingTheFrontEndsImportPassesOnAnEngineType: the import rule
// (TestFrontEndsImportOnlyTheSession) reads direct imports only, so an
// alias (`type Event = workflow.Event`) or a re-exported name (`const X =
// workflow.X`, `var F = workflow.F`, a function that only calls another
// package's with its own arguments) in a package a front end imports
// would hand the engine's types to the front ends with no import to show
// it: a field renamed in the engine would break the CLI, the language
// server and the agents' server with nothing to warn whoever renamed it.
// So, in every package a front end imports, no exported name is another
// icm package's under a second name; and what the front ends call and
// render, the session's and the data package's (report) exported
// signatures, fields and types, names no engine package's type.
func TestNothingTheFrontEndsImportPassesOnAnEngineType(t *testing.T) {
	pkgs := map[string]bool{"session": true, "report": true}
	for _, front := range frontEnds {
		pkgs[front] = true
		for _, imp := range goList(t, "{{join .Imports \"\\n\"}}", "../"+front) {
			if rel, ok := strings.CutPrefix(imp, icmPrefix); ok {
				pkgs[rel] = true
			}
		}
	}
	engine := map[string]bool{}
	for _, e := range enginePackages {
		engine[icmPrefix+e] = true
	}
	var found []string
	for rel := range pkgs {
		if engine[icmPrefix+rel] {
			continue // TestFrontEndsImportOnlyTheSession says so
		}
		surfaceRule := engine
		if rel != "session" && rel != "report" {
			surfaceRule = nil
		}
		found = append(found, reexports(t, rel, surfaceRule)...)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Error(f)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages the front ends import", len(pkgs))
	}
}

// goList runs go list with format f over pattern, one line a result.
func goList(t *testing.T, f, pattern string) []string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-f", f, pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	lines := strings.Fields(string(out))
	if len(lines) == 0 {
		t.Fatalf("go list found nothing for %s", pattern)
	}
	return lines
}

// reexports lists what package rel (below server/internal) passes on of
// other icm packages: aliases and re-exported names of any of them, and
// exported signatures, fields and types that name a type of a package in
// engine.
func reexports(t *testing.T, rel string, engine map[string]bool) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join("..", filepath.FromSlash(rel), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		c := &surface{fset: fset, rel: rel, icm: map[string]string{}, engine: engine}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !strings.HasPrefix(p, icmPrefix) {
				continue
			}
			local := filepath.Base(p)
			if im.Name != nil {
				local = im.Name.Name
			}
			c.icm[local] = p
		}
		for _, d := range f.Decls {
			c.decl(d)
		}
		out = append(out, c.found...)
	}
	return out
}

// surface reads one file's exported declarations.
type surface struct {
	fset *token.FileSet
	rel  string
	// icm maps the file's names for icm packages to their paths.
	icm    map[string]string
	engine map[string]bool
	found  []string
}

func (c *surface) report(n ast.Node, format string, args ...any) {
	p := c.fset.Position(n.Pos())
	c.found = append(c.found, fmt.Sprintf("%s/%s:%d: %s", c.rel, filepath.Base(p.Filename), p.Line, fmt.Sprintf(format, args...)))
}

// other returns "pkg.Name" when e is a name of another icm package.
func (c *surface) other(e ast.Expr) (string, bool) {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok || c.icm[x.Name] == "" {
		return "", false
	}
	return x.Name + "." + sel.Sel.Name, true
}

// engineType returns the first engine package's name within type
// expression e.
func (c *surface) engineType(e ast.Node) string {
	name := ""
	ast.Inspect(e, func(n ast.Node) bool {
		if name != "" {
			return false
		}
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && c.engine[c.icm[x.Name]] {
				name = x.Name + "." + sel.Sel.Name
			}
		}
		return name == ""
	})
	return name
}

func (c *surface) decl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				c.typeSpec(s)
			case *ast.ValueSpec:
				c.valueSpec(s)
			}
		}
	case *ast.FuncDecl:
		c.funcDecl(d)
	}
}

func (c *surface) typeSpec(s *ast.TypeSpec) {
	if !s.Name.IsExported() {
		return
	}
	if s.Assign.IsValid() {
		if name, ok := c.other(s.Type); ok {
			c.report(s, "type %s is an alias of %s: let the package that owns it say it", s.Name.Name, name)
			return
		}
	}
	if st, ok := s.Type.(*ast.StructType); ok {
		for _, f := range st.Fields.List {
			if len(f.Names) > 0 && !f.Names[0].IsExported() {
				continue
			}
			if e := c.engineType(f.Type); e != "" {
				c.report(f, "a field of %s is of %s, an engine type", s.Name.Name, e)
			}
		}
		return
	}
	if it, ok := s.Type.(*ast.InterfaceType); ok {
		for _, m := range it.Methods.List {
			if e := c.engineType(m.Type); e != "" {
				c.report(m, "interface %s names %s, an engine type", s.Name.Name, e)
			}
		}
		return
	}
	if e := c.engineType(s.Type); e != "" {
		c.report(s, "type %s is made of %s, an engine type", s.Name.Name, e)
	}
}

func (c *surface) valueSpec(s *ast.ValueSpec) {
	for i, n := range s.Names {
		if !n.IsExported() {
			continue
		}
		if i < len(s.Values) {
			if name, ok := c.other(s.Values[i]); ok {
				c.report(n, "%s re-exports %s: let the package that owns it say it", n.Name, name)
				continue
			}
		}
		if s.Type != nil {
			if e := c.engineType(s.Type); e != "" {
				c.report(n, "%s is of %s, an engine type", n.Name, e)
			}
		}
	}
}

func (c *surface) funcDecl(d *ast.FuncDecl) {
	if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
		return
	}
	if e := c.engineType(d.Type); e != "" {
		c.report(d, "%s's signature names %s, an engine type", d.Name.Name, e)
		return
	}
	if d.Recv != nil || d.Body == nil || len(d.Body.List) != 1 {
		return
	}
	ret, ok := d.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok {
		return
	}
	if name, ok := c.other(call.Fun); ok && passesOn(d.Type.Params, call.Args) {
		c.report(d, "%s only calls %s with its own arguments: let the package that owns it say it", d.Name.Name, name)
	}
}

// exportedRecv reports whether a method's receiver is an exported type.
func exportedRecv(r *ast.FieldList) bool {
	t := r.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

// passesOn reports whether args are params, in order.
func passesOn(params *ast.FieldList, args []ast.Expr) bool {
	var names []string
	for _, f := range params.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	if len(names) != len(args) {
		return false
	}
	for i, a := range args {
		id, ok := a.(*ast.Ident)
		if !ok || id.Name != names[i] {
			return false
		}
	}
	return true
}
