package fault_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// unkinded are the error types that need no Fault method, each with why:
// none of them reaches a front end as itself.
var unkinded = map[string]string{
	"internal/llm.stallError":    "the cause a request is cancelled with; classify turns it into an llm.Error before the client returns",
	"internal/llm.deadlineError": "the cause a request is cancelled with; classify turns it into an llm.Error before the client returns",
	"internal/critic.invalidError": "the critic's own signal of an answer that failed twice; Judge and Rubric turn it into " +
		"an InvalidAnswerError or a model fault before they return",
	"internal/workflow.errLongLine": "the trace reader's note of a line it skipped; its callers count it and go on",
	"internal/act.Refusal": "act imports the standard library only; a Refusal wraps the permit's reason, which is trust's " +
		"Untrusted fault (found through Unwrap), and a refusal without a permit is a bug, which reads as internal",
	"internal/readtool.Refusal": "a read the read tool declines; workflow's reading tools give its text to the model as the " +
		"tool's answer, and the run goes on",
	"internal/cli.ExitError": "the exit status a command chose after printing its own output; Main reads it and renders nothing",
	"internal/cli.flaggedError": "the flags a command ran with, around its error, for Main's rendering; its kind is its cause's, " +
		"found through Unwrap",
}

// TestEveryErrorTypeKnowsItsKind: every error type of icm's source (a type
// with an Error() string method, tests and test helpers aside) has a
// Fault() *fault.Error method, so the kind is given where the error is
// made and fault.From never guesses one. A type that never reaches a front
// end as itself is listed in unkinded, with why.
func TestEveryErrorTypeKnowsItsKind(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	errTypes, faulters := map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "testutil" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 || fn.Type.Params.NumFields() != 0 || fn.Type.Results.NumFields() != 1 {
				continue
			}
			name := pkg + "." + receiverType(fn.Recv.List[0].Type)
			result := fn.Type.Results.List[0].Type
			switch {
			case fn.Name.Name == "Error" && isIdent(result, "string"):
				errTypes[name] = true
			case fn.Name.Name == "Fault" && isFaultPointer(result, f.Name.Name):
				faulters[name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(errTypes) < 20 {
		t.Fatalf("found only %d error types under %s: the walk is broken", len(errTypes), root)
	}
	var missing []string
	for name := range errTypes {
		if name == "internal/fault.Error" || faulters[name] {
			if _, listed := unkinded[name]; listed {
				t.Errorf("%s has a Fault method: take it off the unkinded list", name)
			}
			continue
		}
		if _, listed := unkinded[name]; !listed {
			missing = append(missing, name)
		}
	}
	for name := range unkinded {
		if !errTypes[name] {
			t.Errorf("%s is on the unkinded list but is no error type any more", name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		t.Errorf("error type %s has no Fault() *fault.Error method: give it its kind (and its fix) where it is made", name)
	}
}

// receiverType is the name of a method's receiver type, pointer or not.
func receiverType(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if g, ok := e.(*ast.IndexExpr); ok {
		e = g.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "?"
}

// isIdent reports whether e is the bare identifier name.
func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// isFaultPointer reports whether e is *fault.Error (or *Error in package
// fault itself).
func isFaultPointer(e ast.Expr, pkg string) bool {
	s, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	if sel, ok := s.X.(*ast.SelectorExpr); ok {
		return isIdent(sel.X, "fault") && sel.Sel.Name == "Error"
	}
	return pkg == "fault" && isIdent(s.X, "Error")
}
