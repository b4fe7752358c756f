package session

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/codecheck"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/critic"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/research"
	"github.com/icm-tool/icm/server/internal/workflow"
)

// StepRequest says what an icm subcommand that a Script stage runs (icm
// research, icm critique, icm code-check --fix) works for. The engine
// passes it as ICM_STAGE and ICM_RUN_ID; outside a run the same commands
// work from the current folder and the workspace's config.
type StepRequest struct {
	// Stage is the stage it works for; "" takes the stage whose folder
	// is Dir, if any.
	Stage string
	Dir   string
	// RunID is the run whose trace its model and tool calls are
	// appended to; "" for none.
	RunID string
	// NeedModel makes a session with no model in force an error.
	NeedModel bool
}

// Step is a session's work for one Script stage's subcommand: the stage,
// the model in force and, inside a run, the run's trace.
type Step struct {
	s      *Session
	stage  string
	client llm.Client
	trace  *workflow.TraceAppender
}

// Step makes ready a subcommand's work. Close it when done.
func (rn Runs) Step(req StepRequest) (*Step, error) {
	s := rn.s
	st := &Step{s: s, stage: req.Stage}
	if st.stage == "" && req.Dir != "" {
		for _, stg := range s.ws.Stages {
			if rel, err := filepath.Rel(stg.Dir, req.Dir); err == nil && rel == "." {
				st.stage = stg.Name
			}
		}
	}
	if req.NeedModel {
		if s.Model() == "" {
			return nil, fault.ConfigInvalid("no model named",
				"name one in config.toml ([model] name), or run this from a Script stage, which passes the stage's model", s.ws.Config.Path)
		}
		c, err := s.modelClient()
		if err != nil {
			return nil, err
		}
		st.client = c
	}
	if req.RunID != "" {
		t, err := workflow.AppendTrace(s.ws, req.RunID, st.stage)
		if err != nil {
			return nil, fault.From(err)
		}
		st.trace = t
	}
	return st, nil
}

// Stage is the stage the step works for, "" when none.
func (st *Step) Stage() string { return st.stage }

// Close lets go of the run's trace.
func (st *Step) Close() { st.trace.Close() }

// observer is where the step's model and tool events go: the run's trace
// when there is a run.
func (st *Step) observer() func(agent.Event) {
	if st.trace == nil {
		return nil
	}
	return st.trace.Observer("")
}

// ResearchRequest bounds a research step. Search and Read name the
// stage's tools as the model sees them (server_tool).
type ResearchRequest struct {
	Search, Read             string
	Rounds, Queries, Results int
}

// Research is research in rounds for the step's stage: each round the
// model reads the stage's assembled context and the findings so far and
// names what is missing as queries; the search tool answers them and the
// reader tool reads the best results. The tools are the ones the stage's
// ## Tools section allows, started as a run starts them.
func (st *Step) Research(ctx context.Context, req ResearchRequest) ([]research.Round, error) {
	s := st.s
	stg, err := s.ws.Stage(st.stage)
	if err != nil {
		return nil, fault.InvalidRequest(fmt.Sprintf("research runs inside a stage: %v", err),
			"run it from a Script stage, or from a stage's folder").Because(err)
	}
	rep := s.Check(nil)
	sr := rep.Stage(stg.Name)
	if sr == nil || sr.Contract == nil {
		return nil, fault.ContractInvalid(stg.Name, stg.Contract, 0, []string{"it has no readable contract"})
	}
	// The research rounds offer the search and reader tools alone, not
	// icm's read tool: the context lists no files to read with it.
	cx, err := assemble.Stage(s.ws, stg, sr.Contract, assemble.Options{ProducedBy: rep.ProducedBy, Order: rep.Order, NoReadTool: true})
	if err != nil {
		return nil, fault.From(err)
	}
	allow := sr.Contract.Tools.Allowed()
	if len(allow) == 0 {
		return nil, fault.ContractInvalid(stg.Name, stg.Contract, 0, []string{"it allows no tools; list the search and reader tools under ## Tools"})
	}
	conn, err := s.Tools().open(ctx, allow)
	if err != nil {
		return nil, fault.ToolFailed(fmt.Sprintf("stage %s: unable to start its tools: %v", stg.Name, err), stg.Name, err)
	}
	defer conn.Close()
	r := &research.Researcher{Client: st.client, Model: s.Model(), Tools: conn, Search: req.Search, Read: req.Read,
		Rounds: req.Rounds, Queries: req.Queries, Results: req.Results, Stage: stg.Name, Observe: st.observer()}
	rounds, err := r.Run(ctx, cx.System, cx.User)
	if err != nil {
		return nil, fault.From(err)
	}
	return rounds, nil
}

// CritiqueRequest is an article to judge. Rubric is extra judging
// guidance ("" for none); ChunkChars bounds the article judged per call
// (critic.DefaultChunkChars when 0).
type CritiqueRequest struct {
	Article    string
	Rubric     string
	ChunkChars int
	// SendBack, when set, is the feedback file of the stage that wrote
	// the article: a failing article's revisions are written to it (which
	// makes that stage run again), at most MaxSendBacks times.
	SendBack     string
	MaxSendBacks int
}

// Critique judges an article with the model and decides in code whether
// it passes, by the thresholds of the step's stage contract (## Thresholds;
// the defaults outside a stage).
func (st *Step) Critique(ctx context.Context, req CritiqueRequest) (*critic.Verdict, contract.Thresholds, error) {
	s := st.s
	th := contract.DefaultThresholds()
	if stg, err := s.ws.Stage(st.stage); err == nil {
		src, err := s.ws.Files.ReadFile(stg.Contract)
		if err != nil {
			return nil, th, fault.From(err)
		}
		if th, err = contract.ParseWith(stg.Contract, src, contract.Options{Vars: s.ws.Vars}).Thresholds(); err != nil {
			return nil, th, fault.ContractInvalid(stg.Name, stg.Contract, 0, []string{err.Error()}).Because(err)
		}
	}
	c := &critic.Critic{Client: st.client, Model: s.Model(), Stage: st.stage, ChunkChars: req.ChunkChars, Rubric: req.Rubric, Observe: st.observer()}
	v, err := c.Judge(ctx, req.Article, th)
	if err != nil {
		return nil, th, fault.From(err)
	}
	if req.SendBack != "" {
		if v.SendBack, err = critic.SendBack(req.SendBack, v, req.MaxSendBacks); err != nil {
			return nil, th, fault.From(err)
		}
	}
	return v, th, nil
}

// FixCode checks every Python and Go block of a Markdown document (runs
// them in the code sandbox when run is set) and sends each failing one to
// the model with its first error, at most attempts times; it returns the
// document with the fixes and a report per block.
func (st *Step) FixCode(ctx context.Context, src []byte, run bool, attempts int) ([]byte, []codecheck.BlockReport, error) {
	f := &codecheck.Fixer{Checker: &codecheck.Checker{}, Attempts: attempts, Client: st.client, Model: st.s.Model(), Stage: st.stage, Observe: st.observer()}
	out, reports, err := f.Fix(ctx, src, run)
	if err != nil {
		return nil, nil, fault.From(err)
	}
	return out, reports, nil
}

// CheckCode is FixCode without a model: each block is parsed (and run
// with run) and reported, none changed.
func CheckCode(ctx context.Context, src []byte, run bool) ([]codecheck.BlockReport, error) {
	f := &codecheck.Fixer{Checker: &codecheck.Checker{}}
	_, reports, err := f.Fix(ctx, src, run)
	if err != nil {
		return nil, fault.From(err)
	}
	return reports, nil
}
