package act

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// self is this package's import path: the one package that may start a
// process or open a connection.
const self = "github.com/icm-tool/icm/server/internal/act"

// banned are the functions that start a process or open a connection,
// by package: outside act, naming one (called or not) is an offence.
var banned = map[string]map[string]string{
	"os/exec":               {"Command": "starts a process", "CommandContext": "starts a process"},
	"os":                    {"StartProcess": "starts a process"},
	"syscall":               {"Exec": "runs a program", "ForkExec": "starts a process", "StartProcess": "starts a process"},
	"golang.org/x/sys/unix": {"Exec": "runs a program"},
	"net": {"Dial": "opens a connection", "DialTimeout": "opens a connection", "DialTCP": "opens a connection",
		"DialUDP": "opens a connection", "DialIP": "opens a connection", "DialUnix": "opens a connection"},
	"crypto/tls": {"Dial": "opens a connection", "DialWithDialer": "opens a connection"},
	"net/http": {"Get": "uses the default client", "Post": "uses the default client", "Head": "uses the default client",
		"PostForm": "uses the default client", "DefaultClient": "is the default client", "DefaultTransport": "is the default transport"},
	"github.com/mark3labs/mcp-go/client": {"NewStdioMCPClient": "starts a process", "NewStdioMCPClientWithOptions": "starts a process",
		"NewStreamableHttpClient": "opens connections with a client of its own", "NewSSEMCPClient": "opens connections with a client of its own",
		"NewOAuthStreamableHttpClient": "opens connections with a client of its own", "NewOAuthSSEClient": "opens connections with a client of its own"},
	"github.com/mark3labs/mcp-go/client/transport": {"NewStdio": "starts a process", "NewStdioWithOptions": "starts a process"},
	"github.com/chromedp/chromedp":                 {"NewRemoteAllocator": "opens a connection"},
	"github.com/ollama/ollama/api":                 {"ClientFromEnvironment": "opens connections with a client of its own", "NewClient": "opens connections with a client of its own"},
}

// gated are library constructors that start a process or open
// connections themselves unless given an option that hands them act's:
// a call must pass that option, with act in its arguments.
var gated = map[string]map[string]string{
	"github.com/mark3labs/mcp-go/client/transport":                    {"NewStreamableHTTP": "WithHTTPBasicClient", "NewSSE": "WithHTTPClient"},
	"github.com/chromedp/chromedp":                                    {"NewExecAllocator": "ModifyCmdFunc"},
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp": {"New": "WithHTTPClient", "NewClient": "WithHTTPClient"},
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc": {"New": "WithDialOption", "NewClient": "WithDialOption"},
}

// pointerOnly are types whose zero value connects on its own (a client,
// a transport or a dialer with the defaults): outside act they appear
// only behind a pointer, one act made.
var pointerOnly = map[string]map[string]bool{
	"net/http": {"Client": true, "Transport": true},
	"net":      {"Dialer": true},
}

// ownUsers are the packages (below server/internal) whose work is icm's
// own, with a target no workspace names, and so may use Own; each says
// why. A package that starts a process or opens a connection for a
// workspace takes the session's permit instead.
var ownUsers = map[string]string{
	"reap":              "the reaper starts the command its parent asked the permit of before starting the reaper",
	"sandbox":           "the code sandbox re-executes icm as its init and launcher, and runs the code a check hands it, fenced in",
	"codecheck":         "the code-blocks check parses a snippet with its own parser",
	"fetch":             "the page reader connects where the model or the person points it, under its address policy",
	"mcpserver/browser": "the page reader's own browser (Chromium, camofox at the address on its command line)",
	"mcpserver/search":  "the search server's SearXNG, at the address on its own command line or in SEARXNG_URL",
	"mcpserver/ingest":  "ingest's git clone, every connection through the page reader's guarded proxy",
	"telemetry":         "spans to the OTLP collector the person's environment names",
}

// skipped are the folders below server/ that hold test helpers, not
// icm: scripted servers and fixtures that tests start.
var skipped = []string{"internal/testutil", "internal/tools/mcpfixture"}

// offence is one place that acts outside the gate.
type offence struct {
	pos  token.Position
	what string
}

func (o offence) String() string { return fmt.Sprintf("%s:%d: %s", o.pos.Filename, o.pos.Line, o.what) }

// TestOnlyActStartsOrConnects reads every non-test Go file of icm and
// fails on each process started and each connection opened outside this
// package: the calls, the default clients and the zero-value clients,
// transports and dialers that do so, and the library constructors that
// would unless given act's client or hook.
func TestOnlyActStartsOrConnects(t *testing.T) {
	files := sources(t)
	var found []offence
	for _, f := range files {
		if f.pkg == "internal/act" {
			continue
		}
		found = append(found, check(f)...)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].String() < found[j].String() })
	for _, o := range found {
		t.Errorf("%s: go through package act (act.Command, act.HTTPClient, act.Dial, ...) with the permit of what it acts for", o)
	}
}

// TestOwnIsClassified: only the packages listed in ownUsers use Own, and
// each listed one does. A new package that acts on its own account is
// classified here, with its reason, before it can.
func TestOwnIsClassified(t *testing.T) {
	users := map[string][]token.Position{}
	for _, f := range sources(t) {
		name := importName(f.file, self)
		if name == "" {
			continue
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && isPkg(sel.X, name) && sel.Sel.Name == "Own" {
				users[f.pkg] = append(users[f.pkg], f.fset.Position(sel.Pos()))
			}
			return true
		})
	}
	for pkg, at := range users {
		if _, ok := ownUsers[strings.TrimPrefix(pkg, "internal/")]; !ok {
			t.Errorf("%s uses act.Own (%s:%d) but is not in ownUsers: a workspace's work takes the session's permit; icm's own is listed there, with why", pkg, at[0].Filename, at[0].Line)
		}
	}
	for pkg, why := range ownUsers {
		if _, ok := users["internal/"+pkg]; !ok {
			t.Errorf("ownUsers lists %s (%s), which no longer uses act.Own: take it off the list", pkg, why)
		}
	}
}

// source is one parsed file and its package folder below server/.
type source struct {
	fset *token.FileSet
	file *ast.File
	pkg  string
}

// sources parses every non-test Go file below server/, test helpers
// aside.
func sources(t *testing.T) []source {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []source
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, s := range skipped {
				if rel == s {
					return filepath.SkipDir
				}
			}
			if d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, source{fset: fset, file: f, pkg: filepath.ToSlash(filepath.Dir(rel))})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 200 {
		t.Fatalf("found only %d Go files below %s", len(out), root)
	}
	return out
}

// check finds a file's offences.
func check(f source) []offence {
	imports := map[string]string{} // local name -> path
	for _, spec := range f.file.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		name := defaultName(path)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		imports[name] = path
	}
	actName := importName(f.file, self)
	var out []offence
	var stack []ast.Node
	ast.Inspect(f.file, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		var parent ast.Node
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		stack = append(stack, n)
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		path, ok := imports[id.Name]
		if !ok {
			return true
		}
		name := sel.Sel.Name
		at := f.fset.Position(sel.Pos())
		if why, ok := banned[path][name]; ok {
			out = append(out, offence{at, fmt.Sprintf("%s.%s %s", id.Name, name, why)})
		}
		if opt, ok := gated[path][name]; ok {
			call, isCall := parent.(*ast.CallExpr)
			if !isCall || call.Fun != sel || !passes(enclosing(stack), call, id.Name, opt, actName) {
				out = append(out, offence{at, fmt.Sprintf("%s.%s acts on its own unless given %s.%s with act's client or hook", id.Name, name, id.Name, opt)})
			}
		}
		if pointerOnly[path][name] {
			if _, star := parent.(*ast.StarExpr); !star {
				out = append(out, offence{at, fmt.Sprintf("a %s.%s value connects with the defaults", id.Name, name)})
			}
		}
		return true
	})
	return out
}

// enclosing is the innermost function (declared or literal) on the
// stack, or the last node when there is none.
func enclosing(stack []ast.Node) ast.Node {
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i].(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return stack[i]
		}
	}
	return stack[len(stack)-1]
}

// passes reports whether call is given its option pkg.opt(...) with
// arguments that refer to package act: among its arguments, or in what
// fn (the calling function) assigns to a variable it passes (options
// are often gathered in a slice first).
func passes(fn ast.Node, call *ast.CallExpr, pkg, opt, actName string) bool {
	if actName == "" {
		return false
	}
	for _, arg := range call.Args {
		if makesOption(arg, pkg, opt, actName) {
			return true
		}
		id, ok := arg.(*ast.Ident)
		if !ok {
			continue
		}
		found := false
		ast.Inspect(fn, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok {
				for i, lhs := range as.Lhs {
					if isPkg(lhs, id.Name) && i < len(as.Rhs) && makesOption(as.Rhs[i], pkg, opt, actName) {
						found = true
					}
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// makesOption reports whether x holds a call pkg.opt(...) whose
// arguments refer to package act.
func makesOption(x ast.Expr, pkg, opt, actName string) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok || !isPkg(sel.X, pkg) || sel.Sel.Name != opt {
			return true
		}
		for _, a := range c.Args {
			ast.Inspect(a, func(n ast.Node) bool {
				if s, ok := n.(*ast.SelectorExpr); ok && isPkg(s.X, actName) {
					found = true
				}
				return !found
			})
		}
		return !found
	})
	return found
}

// isPkg reports whether x is the identifier name.
func isPkg(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}

// importName is the name f knows path by, "" when f does not import it.
func importName(f *ast.File, path string) string {
	for _, spec := range f.Imports {
		if p, _ := strconv.Unquote(spec.Path.Value); p == path {
			if spec.Name != nil {
				return spec.Name.Name
			}
			return defaultName(path)
		}
	}
	return ""
}

// defaultName is the name a package is known by when imported without
// one: its last element, a major version suffix aside.
func defaultName(path string) string {
	parts := strings.Split(path, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	return last
}

// TestTheGateTestFindsEachWayToAct: check finds every way to act the
// rules name, and passes the same calls made through act.
func TestTheGateTestFindsEachWayToAct(t *testing.T) {
	const src = `package p

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"syscall"

	"github.com/chromedp/chromedp"
	"github.com/icm-tool/icm/server/internal/act"
	"github.com/mark3labs/mcp-go/client/transport"
)

var run = exec.Command

func f(ctx context.Context, p act.Permit) {
	exec.CommandContext(ctx, "sh")
	os.StartProcess("x", nil, nil)
	syscall.Exec("x", nil, nil)
	net.Dial("tcp", "x:1")
	http.Get("http://x")
	_ = http.DefaultClient
	_ = &http.Client{}
	var tr http.Transport
	_ = new(net.Dialer)
	transport.NewStreamableHTTP("http://x")
	transport.NewStreamableHTTP("http://x", transport.WithHTTPBasicClient(nil))
	chromedp.NewExecAllocator(ctx)

	// Through act: none of these is an offence.
	var c *http.Client = act.HTTPClient(p, act.Action{}, act.HTTP{})
	transport.NewStreamableHTTP("http://x", transport.WithHTTPBasicClient(act.HTTPClient(p, act.Action{}, act.HTTP{})))
	chromedp.NewExecAllocator(ctx, chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) { act.Guard(p, act.Action{}, cmd) }))
	_ = http.DefaultTransport.(*http.Transport)
}

func g(ctx context.Context, p act.Permit) {
	opts := []chromedp.ExecAllocatorOption{chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) { act.Guard(p, act.Action{}, cmd) })}
	chromedp.NewExecAllocator(ctx, opts...)
}

func h(ctx context.Context) {
	chromedp.NewExecAllocator(ctx, opts...)
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := check(source{fset: fset, file: f, pkg: "internal/p"})
	var lines []int
	for _, o := range got {
		lines = append(lines, o.pos.Line)
	}
	want := []int{15, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 35, 44}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Fatalf("offences on lines %v, want %v:\n%v", lines, want, got)
	}
}
