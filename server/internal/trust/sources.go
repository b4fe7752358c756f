package trust

import (
	"bytes"
	"path/filepath"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/testcase"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// source is one kind of file of a workspace that can name something icm
// would act for. Every kind is a row of sources: Of lists the parts of
// each, and Reads says which files a decision depends on, so a new kind
// of file that can act is added here once.
type source struct {
	// what says what the files are and what in them acts.
	what string
	// holds reports whether the file at abs (inside the workspace) is
	// of this kind.
	holds func(ws *workspace.Workspace, abs string) bool
	// parts lists what the files of this kind name.
	parts func(l *lister) Parts
}

// sources are the kinds of files that can act, in the order Of reads them.
var sources = []source{
	{
		what:  "config.toml ([model] servers, keys and model names, [test] models, [mcp.servers], [reads] workspace) and the editors' MCP configurations (.vscode/mcp.json, .mcp.json)",
		holds: isServerConfig,
		parts: configParts,
	},
	{
		what: "stage contracts (CONTEXT.md: ## Script, `run:` Verify checks, ## Model)",
		holds: func(ws *workspace.Workspace, abs string) bool {
			st := ws.StageOf(abs)
			return st != nil && abs == st.Contract
		},
		parts: contractParts,
	},
	{
		what: "stage test cases (tests/NAME.md, tests/NAME/CASE.md: `run:` expectations)",
		holds: func(ws *workspace.Workspace, abs string) bool {
			_, ok := testcase.IsCaseFile(ws, abs)
			return ok
		},
		parts: caseParts,
	},
}

// lister is what reading one workspace's parts shares: the workspace and
// the pins made so far.
type lister struct {
	ws   *workspace.Workspace
	pins *pinner
}

// Reads reports whether a change to the file at abs may change what the
// workspace names: a file of a kind that can act (sources), or a file a
// command of parts runs (pinned by its content).
func Reads(ws *workspace.Workspace, parts Parts, abs string) bool {
	for _, s := range sources {
		if s.holds(ws, abs) {
			return true
		}
	}
	return parts.Pinned(ws.InputRel(abs))
}

// isServerConfig reports whether abs is config.toml or an MCP
// configuration of the workspace.
func isServerConfig(ws *workspace.Workspace, abs string) bool {
	rel := ws.Rel(abs)
	return rel == config.FileName || rel == filepath.ToSlash(tools.VSCodeFile) || rel == tools.PortableFile
}

// configParts are config.toml's model servers, keys and model names, and
// every tool server entry, in the precedence icm reads them.
func configParts(l *lister) Parts {
	ws := l.ws
	ps := modelParts(ws.Config)
	ps = append(ps, configPulls(ws.Config)...)
	ps = append(ps, readParts(ws.Config)...)
	for _, s := range tools.Written(ws.Root, ws.Config) {
		ps = append(ps, l.serverParts(s)...)
	}
	return ps
}

// namesAny reports whether src may hold any of words (lower case), in
// any case: a file that holds none is not parsed (a session decides its
// trust on every opening, icm check's included).
func namesAny(src []byte, words ...string) bool {
	for _, w := range words {
		if containsFold(src, w) {
			return true
		}
	}
	return false
}

// containsFold reports whether src holds the ASCII word lower in any
// case, without copying src.
func containsFold(src []byte, lower string) bool {
	if lower == "" {
		return true
	}
	first, upper := lower[0], lower[0]
	if 'a' <= first && first <= 'z' {
		upper = first - 'a' + 'A'
	}
	for i := 0; i+len(lower) <= len(src); i++ {
		if c := src[i]; (c == first || c == upper) && bytes.EqualFold(src[i:i+len(lower)], []byte(lower)) {
			return true
		}
	}
	return false
}

// modelHeading reports whether src has a heading that mentions a model
// (where a contract names one).
func modelHeading(src []byte) bool {
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		if t := bytes.TrimLeft(line, " "); len(t) > 0 && t[0] == '#' && containsFold(t, "model") {
			return true
		}
	}
	return false
}
