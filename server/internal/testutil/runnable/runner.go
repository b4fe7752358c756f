package runnable

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/cli"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Repo is a folder that stands for a repository, and its workspaces.
type Repo struct {
	// Name is how the report names it ("corpus/mgalela-bubat").
	Name string
	// Dir is the folder; it is only read.
	Dir string
	// Workspaces are folders of Dir ("." for Dir itself); nil finds them
	// (Workspaces).
	Workspaces []string
}

// Options configure a measurement.
type Options struct {
	// Model is the scripted model's name, given to every run with
	// --model; "scripted" when empty.
	Model string
	// ContextLength is the scripted model's window in tokens; 40960 (a
	// qwen3 model's) when zero.
	ContextLength int
	// Icm is the icm executable that `command = "icm"` tool servers run;
	// empty leaves them to fail as tools that cannot start.
	Icm string
	// Progress, when set, gets one line per stage as it ends.
	Progress io.Writer
	// Observe, when set, is called after each stage's run, while its
	// copy is still on disk.
	Observe func(StageRun)
	// Before, when set, is called before each stage's run with the
	// workspace's folder in the copy and the stage's name.
	Before func(dir, stage string)
}

// StageRun is what Observe sees of one stage.
type StageRun struct {
	// Dir is the workspace's folder in the copy.
	Dir string
	// Stage is the stage's result so far.
	Stage Stage
	// Requests are the chat calls its run made.
	Requests []*ollamatest.Request
}

// DefaultContextLength is the scripted model's window when Options give
// none: a qwen3 model's.
const DefaultContextLength = 40960

// Measure runs every stage of every workspace of repos and reports how
// each went.
func Measure(ctx context.Context, repos []Repo, opts Options) (*Report, error) {
	if opts.Model == "" {
		opts.Model = "scripted"
	}
	if opts.ContextLength == 0 {
		opts.ContextLength = DefaultContextLength
	}
	rep := &Report{}
	for _, r := range repos {
		wss, err := measureRepo(ctx, r, opts)
		if err != nil {
			return nil, err
		}
		rep.Workspaces = append(rep.Workspaces, wss...)
	}
	return rep, nil
}

func measureRepo(ctx context.Context, r Repo, opts Options) ([]Workspace, error) {
	tmp, err := os.MkdirTemp("", "icm-runnable-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// The temporary folder's real path: messages name files by it.
	if tmp, err = filepath.EvalSymlinks(tmp); err != nil {
		return nil, err
	}
	root := filepath.Join(tmp, "repo")
	if err := copyRepo(r.Dir, root); err != nil {
		return nil, err
	}
	wss := r.Workspaces
	if wss == nil {
		if wss, err = Workspaces(root); err != nil {
			return nil, err
		}
	}
	var out []Workspace
	for _, w := range wss {
		m := &measurer{opts: opts, name: path.Join(r.Name, w), tmp: tmp, root: root, dir: filepath.Join(root, filepath.FromSlash(w))}
		res, err := m.workspace(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		out = append(out, *res)
	}
	return out, nil
}

// measurer runs the stages of one workspace of a copy.
type measurer struct {
	opts      Options
	name      string
	tmp, root string
	dir       string
	srv       *ollamatest.Server
	env       map[string]string
}

func (m *measurer) workspace(ctx context.Context) (*Workspace, error) {
	ws, err := workspace.Open(m.dir, nil)
	if err != nil {
		return nil, err
	}
	srv, err := ollamatest.Listen("127.0.0.1:0", ollamatest.Config{
		Models: []ollamatest.Model{{Name: m.opts.Model, ContextLength: m.opts.ContextLength, Family: "qwen3",
			Capabilities: []string{"completion", "tools"}}},
		AllowUnscripted: true,
	})
	if err != nil {
		return nil, err
	}
	defer func() { _ = srv.Close() }()
	m.srv = srv
	srv.DefaultFunc((&model{body: sectionBody(ws)}).reply)
	cfg, err := os.MkdirTemp(m.tmp, "config-")
	if err != nil {
		return nil, err
	}
	// What icm reads of the environment: this server, an empty config
	// folder (no trust records, no person's settings), no repository
	// named from outside.
	m.env = map[string]string{"OLLAMA_HOST": srv.URL(), "ICM_CONFIG_DIR": cfg, "ICM_REPO": ""}
	res := &Workspace{Name: m.name}
	outcome := map[string]Outcome{}
	for _, st := range ws.Stages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := m.stage(ctx, st.Name, outcome)
		outcome[st.Name] = s.Outcome
		res.Stages = append(res.Stages, s)
		if m.opts.Progress != nil {
			fmt.Fprintf(m.opts.Progress, "%s %s: %s\n", m.name, st.Name, s.cell())
		}
	}
	return res, nil
}

// stage runs one stage and approves it; outcome holds the earlier
// stages' outcomes.
func (m *measurer) stage(ctx context.Context, name string, outcome map[string]Outcome) Stage {
	if m.opts.Before != nil {
		m.opts.Before(m.dir, name)
	}
	before := len(m.srv.ChatRequests())
	// As a person keeping the author's results answers the question a
	// workspace with committed outputs asks: keep them.
	out, err := m.icm(ctx, "run", "--stage", name, "--model", m.opts.Model, "--adopt", "--json")
	reqs := m.srv.ChatRequests()[before:]
	s := Stage{Name: name, ModelCalls: len(reqs)}
	sum := summaryOf(out)
	switch {
	case err != nil:
		m.judge(&s, "run", err, outcome)
	case s.ModelCalls == 0 && sum.adopted(name):
		s.Outcome = Adopted
	case s.ModelCalls == 0 && sum.wroteNothing(name):
		s.Outcome = Manual
	}
	if err == nil {
		if _, aerr := m.icm(ctx, "approve", name); aerr != nil {
			m.judge(&s, "approve", aerr, outcome)
		} else if s.Outcome == "" {
			s.Outcome = Ran
		}
	}
	if m.opts.Observe != nil {
		m.opts.Observe(StageRun{Dir: m.dir, Stage: s, Requests: reqs})
	}
	return s
}

// judge fills in how a stage's command failed.
func (m *measurer) judge(s *Stage, step string, err error, outcome map[string]Outcome) {
	s.Step = step
	s.Kind, s.Message = kindOf(err), m.rel(firstLine(err.Error()))
	if up := missingUpstream(err); up != "" && outcome[up] != Ran {
		s.Outcome, s.Upstream = Skipped, up
		return
	}
	if step == "run" && s.ModelCalls > 0 {
		s.Outcome = Failed
		return
	}
	s.Outcome = Refused
	s.Reasons = reasons(err, m.errorCodes(s.Name))
}

// errorCodes are the codes of the error findings on a stage's contract,
// as icm check reports them now.
func (m *measurer) errorCodes(stage string) []string {
	ws, err := workspace.Open(m.dir, nil)
	if err != nil {
		return nil
	}
	rep := check.Run(ws, check.Options{})
	sr := rep.Stage(stage)
	if sr == nil || sr.Stage == nil {
		return nil
	}
	var codes []string
	for _, f := range rep.FindingsFor(sr.Stage.Contract) {
		if f.Severity == contract.Error {
			codes = append(codes, f.Code)
		}
	}
	return codes
}

// icm runs one icm command on the workspace, as `icm -w DIR --trust
// ARGS...` at a terminal, and returns what it printed on standard output.
// Asked whether to run a stage on an earlier one's output nobody could
// approve (its checks failed), the person says yes: every stage is
// measured.
func (m *measurer) icm(ctx context.Context, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	env := &cli.Env{
		Stdin: strings.NewReader("y\n"), Stdout: &stdout, Stderr: &stderr, Interactive: true,
		Getenv: func(k string) string {
			if v, ok := m.env[k]; ok {
				return v
			}
			return os.Getenv(k)
		},
		Getwd: func() (string, error) { return m.dir, nil },
		Self:  m.opts.Icm,
	}
	if env.Self == "" {
		env.Self = filepath.Join(m.tmp, "icm-not-built")
	}
	err := cli.Run(ctx, env, append([]string{"-w", m.dir, "--trust"}, args...))
	return stdout.Bytes(), err
}

// rel makes a message independent of where the copy is: paths in it are
// relative to the copy's root, the model server is named as such.
func (m *measurer) rel(s string) string {
	s = strings.ReplaceAll(s, m.root+string(filepath.Separator), "")
	s = strings.ReplaceAll(s, m.root, ".")
	s = strings.ReplaceAll(s, m.tmp, "TMP")
	if m.srv != nil {
		s = strings.ReplaceAll(s, m.srv.URL(), "MODEL-SERVER")
		s = strings.ReplaceAll(s, strings.TrimPrefix(m.srv.URL(), "http://"), "MODEL-SERVER")
	}
	return s
}

// runSummary is what the measurement reads of the summary icm printed
// (the last JSON line of `icm run --json`).
type runSummary struct {
	Ran []struct {
		Stage   string   `json:"stage"`
		Outputs []string `json:"outputs"`
	} `json:"ran"`
	Adopted []string `json:"adopted"`
}

func summaryOf(out []byte) runSummary {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	var sum runSummary
	if len(lines) > 0 {
		_ = json.Unmarshal(lines[len(lines)-1], &sum)
	}
	return sum
}

// wroteNothing reports whether the summary says the stage ran and wrote
// no file.
func (sum runSummary) wroteNothing(stage string) bool {
	for _, r := range sum.Ran {
		if r.Stage == stage {
			return len(r.Outputs) == 0
		}
	}
	return false
}

// adopted reports whether the summary says the run kept the stage's
// committed outputs as approved and did not run it.
func (sum runSummary) adopted(stage string) bool {
	for _, r := range sum.Ran {
		if r.Stage == stage {
			return false
		}
	}
	return slices.Contains(sum.Adopted, stage)
}

// sectionBody is what the model writes into a Markdown file: a heading
// for every section a stage of the workspace reads by name, so an input
// scoped to a section finds it.
func sectionBody(ws *workspace.Workspace) string {
	body := "Written for the measurement.\n"
	rep := check.Run(ws, check.Options{})
	seen := map[string]bool{}
	for _, sr := range rep.Stages {
		if sr.Contract == nil {
			continue
		}
		for _, in := range sr.Contract.Inputs {
			if in.Scope == nil {
				continue
			}
			for _, h := range append(append([]string{}, in.Scope.Headings...), in.Scope.Names...) {
				if !seen[h] {
					seen[h] = true
					body += "\n## " + h + "\n\nSome text.\n"
				}
			}
		}
	}
	return body
}
