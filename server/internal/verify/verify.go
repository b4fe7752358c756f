// Package verify runs a contract's Verify checks on a stage's outputs.
// Every check is deterministic code: a failure names the file, the line
// when there is one, and what to fix. Nothing here asks a model.
package verify

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/markdown"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Output is one output file to check.
type Output struct {
	// Rel is the workspace-relative path (shown in findings).
	Rel string
	// Abs is the file on disk.
	Abs string
	// Data is the file's content, read once by Run (through Env.Files)
	// for every check; a CodeChecker uses it rather than reading Abs.
	Data []byte
}

// Env is what checks that run commands or read schemas need.
type Env struct {
	// StageDir is the stage folder (commands run there; schema paths are relative to it).
	StageDir string
	// Workspace is the workspace root.
	Workspace string
	Stage     string
	// Resolve resolves a path written in the contract (refusing escapes).
	Resolve func(p string) (string, error)
	// Runner runs `run:` commands; nil means the default (sh -c in StageDir with a timeout).
	Runner CommandRunner
	// Permit allows or refuses each `run:` command the default runner is
	// about to start (the session's trust, for the workspace that runs
	// it); nil refuses them all.
	Permit act.Permit
	// RunKind is what a `run:` command is to the permit: act.Check (the
	// default) for a contract's, act.CaseCheck for a stage test case's.
	RunKind act.Kind
	// CodeBlocks runs `code-blocks parse|run`; nil means the check is
	// reported as unavailable.
	CodeBlocks CodeChecker
	// Provenance is where the run's URLs came from; nil when unknown (a
	// record written before icm kept it), which leaves `sources` checking
	// the form only and makes `sources-from-tools` say it cannot tell.
	Provenance *Provenance
	// Files reads the outputs: the workspace's, so a link out of it is
	// refused. nil reads them as regular files, capped.
	Files workspace.Files
	// Schemas is the workspace the json-schema files lie in: each is read
	// through its Files, and the schema files their references name must
	// lie inside it (package schemas).
	Schemas *workspace.Workspace
}

// read reads an output through env.Files.
func (env Env) read(p string) ([]byte, error) {
	if env.Files != nil {
		return env.Files.ReadFile(p)
	}
	return workspace.ReadFileAt(p, 0)
}

// CodeChecker checks the fenced code blocks of a Markdown output.
type CodeChecker interface {
	Check(ctx context.Context, out Output, run bool) ([]state.VerifyFinding, error)
}

// Run runs every check on every output and returns one result per check.
func Run(ctx context.Context, checks []contract.Check, outs []Output, env Env) []state.VerifyResult {
	var results []state.VerifyResult
	for _, c := range checks {
		r := state.VerifyResult{Check: describe(c)}
		var err error
		r.Findings, err = runOne(ctx, c, outs, env)
		if err != nil {
			r.Findings = append(r.Findings, state.VerifyFinding{File: env.Stage, Message: err.Error()})
		}
		r.OK = len(r.Findings) == 0
		results = append(results, r)
	}
	return results
}

func describe(c contract.Check) string {
	if c.Arg == "" {
		return c.Kind
	}
	if c.Kind == contract.CheckRun {
		return "run: " + c.Arg
	}
	return c.Kind + " " + c.Arg
}

func runOne(ctx context.Context, c contract.Check, outs []Output, env Env) ([]state.VerifyFinding, error) {
	if c.Kind == contract.CheckRun {
		return runCommand(ctx, c.Arg, env)
	}
	var all []state.VerifyFinding
	for _, o := range outs {
		data, err := env.read(o.Abs)
		if err != nil {
			msg := "the output was not written"
			if workspace.Refused(err) {
				msg = "the output cannot be read: " + err.Error()
			}
			all = append(all, state.VerifyFinding{File: o.Rel, Message: msg})
			continue
		}
		o.Data = data
		var fs []state.VerifyFinding
		if c.Kind == contract.CheckHeadings || c.Kind == contract.CheckSources {
			// These read the output's structure: one nested past what icm
			// parses cannot pass, and says why.
			if lerr := markdown.Check(data); lerr != nil {
				all = append(all, state.VerifyFinding{File: o.Rel, Message: "the output cannot be read as Markdown: " + lerr.Error()})
				continue
			}
		}
		switch c.Kind {
		case contract.CheckNonEmpty:
			if strings.TrimSpace(string(data)) == "" {
				fs = append(fs, state.VerifyFinding{File: o.Rel, Message: "the output is empty"})
			}
		case contract.CheckHeadings:
			fs = headings(o, data, c.Min, c.Max)
		case contract.CheckMaxWords, contract.CheckMinWords:
			fs = words(o, data, c.Min, c.Max)
		case contract.CheckSources:
			fs = sources(o, data)
			if p := env.Provenance; p != nil && p.Tools {
				fs = append(fs, unsourced(o, data, p, true)...)
			}
		case contract.CheckSourcesTools:
			if env.Provenance == nil {
				return nil, fault.Failed("unable to tell which URLs this run's tool calls returned (the run record predates the check): run the stage again", "run the stage again", nil)
			}
			fs = unsourced(o, data, env.Provenance, false)
		case contract.CheckNoPlaceholders:
			fs = placeholders(o, data)
		case contract.CheckJSONSchema:
			fs, err = jsonSchema(o, data, c.Arg, env)
		case contract.CheckCodeBlocks:
			if env.CodeBlocks == nil {
				return nil, fault.Failed("code-blocks checks are not available in this run", "run the checks where icm can start its code sandbox", nil)
			}
			fs, err = env.CodeBlocks.Check(ctx, o, c.Arg == "run")
		default:
			return nil, fmt.Errorf("unknown check %q", c.Kind)
		}
		if err != nil {
			return nil, err
		}
		all = append(all, fs...)
	}
	return all, nil
}

func headings(o Output, data []byte, min, max int) []state.VerifyFinding {
	n := len(markdown.Parse(data).Sections(2))
	switch {
	case min >= 0 && n < min:
		return []state.VerifyFinding{{File: o.Rel, Message: fmt.Sprintf("%d `##` sections; at least %d expected", n, min)}}
	case max >= 0 && n > max:
		return []state.VerifyFinding{{File: o.Rel, Message: fmt.Sprintf("%d `##` sections; at most %d expected: merge or cut some", n, max)}}
	}
	return nil
}

// CountWords counts words the way a reader would: runs of letters or digits.
func CountWords(text string) int {
	return len(strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-' }))
}

func words(o Output, data []byte, min, max int) []state.VerifyFinding {
	n := CountWords(string(data))
	switch {
	case max >= 0 && n > max:
		return []state.VerifyFinding{{File: o.Rel, Message: fmt.Sprintf("%d words; cut it to %d or fewer", n, max)}}
	case min >= 0 && n < min:
		return []state.VerifyFinding{{File: o.Rel, Message: fmt.Sprintf("%d words; it needs at least %d", n, min)}}
	}
	return nil
}

var (
	sourcesLine = regexp.MustCompile(`(?im)^\s*[-*]?\s*\**sources?\**\s*:.*https?://`)
	urlPattern  = regexp.MustCompile(`https?://\S+`)
)

func sources(o Output, data []byte) []state.VerifyFinding {
	doc := markdown.Parse(data)
	m := newLines(data)
	var fs []state.VerifyFinding
	secs := doc.Sections(2)
	if len(secs) == 0 {
		if !sourcesLine.Match(data) {
			fs = append(fs, state.VerifyFinding{File: o.Rel, Line: 1, Message: "no `Sources:` line with a URL"})
		}
		return fs
	}
	for _, s := range secs {
		body := data[s.Range.Start:s.Range.End]
		if !sourcesLine.Match(body) {
			// A Sources line may wrap the URLs onto following bullet lines.
			i := strings.Index(strings.ToLower(string(body)), "sources:")
			if i < 0 || !urlPattern.Match(body[i:]) {
				fs = append(fs, state.VerifyFinding{File: o.Rel, Line: m.line(s.Heading.Line.Start),
					Message: fmt.Sprintf("section %q has no `Sources:` line with a URL", s.Heading.Text)})
			}
		}
	}
	return fs
}

var placeholderPattern = regexp.MustCompile(`\{\{[^}]*\}\}|\bTODO\b|\bTBD\b`)

func placeholders(o Output, data []byte) []state.VerifyFinding {
	var fs []state.VerifyFinding
	for i, line := range strings.Split(string(data), "\n") {
		if loc := placeholderPattern.FindString(line); loc != "" {
			fs = append(fs, state.VerifyFinding{File: o.Rel, Line: i + 1, Message: fmt.Sprintf("placeholder %q left in the text", loc)})
		}
	}
	return fs
}

// lines maps byte offsets to 1-based line numbers.
type lines struct{ starts []int }

func newLines(data []byte) lines {
	s := []int{0}
	for i, b := range data {
		if b == '\n' {
			s = append(s, i+1)
		}
	}
	return lines{s}
}

func (l lines) line(off int) int {
	n := 0
	for n < len(l.starts) && l.starts[n] <= off {
		n++
	}
	return n
}
