package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/suggest"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Status checks the workspace as it is on disk and derives every stage's
// state as a run with these settings sees it (a stage run with a model
// override is not stale under the same override).
func (s *Session) Status() (*state.PipelineState, *check.Report, error) {
	return s.StatusWith(nil)
}

// ModelFacts is what a front end learned of the model server's models,
// for StatusWith to judge model names by: Installed are its models, and
// Known is false while it has not answered (so none can be checked).
// Down, when set, is why the server did not answer when asked: a model
// stage waits for it, and the next step says so.
type ModelFacts struct {
	Installed []string
	Known     bool
	Down      error
}

// StatusWith is Status judging each stage's model by facts (nil judges
// none): a model the server lacks, or a changed one that cannot be
// checked, puts its stages in "config error" with their approvals kept,
// rather than making them stale; a server that was down holds up the
// next model stage's run.
func (s *Session) StatusWith(facts *ModelFacts) (*state.PipelineState, *check.Report, error) {
	s.warnConfig()
	rep := s.Check(nil)
	p, err := s.pipeline(rep, facts)
	if err != nil {
		return nil, rep, fault.From(err)
	}
	return p, rep, nil
}

// pipeline derives every stage's state from rep, and the next step from
// them and from what blocks a run (see blocks).
func (s *Session) pipeline(rep *check.Report, facts *ModelFacts) (*state.PipelineState, error) {
	return rep.PipelineWith(state.PipelineOptions{Model: s.opts.Settings.Model, Models: s.modelCheck(facts), Blocks: s.blocks(facts)})
}

// Check runs the workspace's checks (what `icm check` reports) over files,
// or the disk when files is nil, with nothing learned from a server.
func (s *Session) Check(files workspace.Files) *check.Report {
	return s.checkWith(files, CheckFacts{})
}

// view is the workspace read through files (nil: as opened).
func (s *Session) view(files workspace.Files) *workspace.Workspace {
	if files == nil {
		return s.ws
	}
	v := *s.ws
	v.Files = files
	return &v
}

// Probe is a stage's context as a run would assemble it.
type Probe struct {
	Stage   *workspace.Stage
	Context *assemble.Context
	// Items counts a For each stage's items; -1 when it has no For each.
	Items int
	// Contract and Options are what the context was assembled from (for
	// Counts.Probe).
	Contract *contract.Contract
	Options  assemble.Options
	// Workspace is the workspace read through the probe's files, and
	// Report the check the probe made of it.
	Workspace *workspace.Workspace
	Report    *check.Report
}

// Probe assembles a stage's context from files (nil: the disk) without
// calling a model; inputs an earlier stage has not produced yet are
// marked. item > 0 picks one item of a For each stage.
func (s *Session) Probe(files workspace.Files, stage string, item int) (*Probe, error) {
	s.warnConfig()
	ws := s.view(files)
	st, err := ws.Stage(stage)
	if err != nil {
		return nil, fault.From(err)
	}
	rep := check.Run(ws, s.CheckOptions(CheckFacts{}))
	sr := rep.Stage(st.Name)
	if sr == nil || sr.Contract == nil {
		return nil, fault.ContractInvalid(st.Name, st.Contract, 0, []string{"it has no readable " + workspace.ContractFile})
	}
	opts := assemble.Options{AllowMissing: true, ProducedBy: rep.ProducedBy, Order: rep.Order}
	if item > 0 {
		if err := assemble.SelectItem(ws, st, sr.Contract, item, &opts); err != nil {
			return nil, fault.From(err)
		}
	}
	cx, err := assemble.Stage(ws, st, sr.Contract, opts)
	if err != nil {
		return nil, fault.From(err)
	}
	return &Probe{Stage: st, Context: cx, Items: sr.Items, Contract: sr.Contract, Options: opts, Workspace: ws, Report: rep}, nil
}

// OutputFile is one current output.
type OutputFile struct {
	// Path is absolute.
	Path   string
	Exists bool
}

// KeptOutput is one kept version of an output file.
type KeptOutput struct {
	// Path is the kept copy, absolute.
	Path string
	// RunID is the run that wrote it, "" for a person's edit or a cut-off
	// answer.
	RunID string
	Time  time.Time
}

// warnConfig says once, through Warn, that config.toml could not be read:
// what Status and Probe show then rests on the defaults, and saying
// nothing would pass them off as the person's settings.
func (s *Session) warnConfig() {
	s.configWarned.Do(func() {
		if s.ws.ConfigErr != nil {
			s.warn(s.ws.ConfigErr.Error() + " (icm shows the workspace with the default settings and runs nothing until config.toml is fixed)")
			return
		}
		// A misspelt key is not applied: said, so that a setting that has
		// no effect is not taken for one that has.
		for _, m := range s.ws.Config.Misspelt {
			s.warn(fmt.Sprintf("%s:%d: %s", config.FileName, m.Line, m))
		}
	})
}

// modelCheck judges model names by what the server said; nil for nil.
func (s *Session) modelCheck(facts *ModelFacts) state.ModelCheck {
	if facts == nil {
		return nil
	}
	server := s.serverName()
	return func(model string) (string, bool) {
		if !facts.Known {
			return fmt.Sprintf("whether %s has %q cannot be checked: it does not answer", server, model), false
		}
		if installedModel(facts.Installed, model) {
			return "", false
		}
		problem := fmt.Sprintf("%s has no model %q", server, model)
		if m := suggest.Model(model, facts.Installed); m != "" {
			problem += fmt.Sprintf(" (did you mean %s?)", m)
		}
		return problem, true
	}
}

// serverName names the model server in force for messages: "the model
// server at URL".
func (s *Session) serverName() string {
	if u := s.ModelServer().URL(); u != "" {
		return "the model server at " + u
	}
	return "the model server"
}

// installedModel reports whether model is among installed, as Ollama
// names them: any case, and ":latest" when no tag is given.
func installedModel(installed []string, model string) bool {
	norm := func(m string) string {
		m = strings.ToLower(strings.TrimSpace(m))
		if !strings.Contains(m, ":") {
			m += ":latest"
		}
		return m
	}
	want := norm(model)
	for _, m := range installed {
		if norm(m) == want {
			return true
		}
	}
	return false
}
