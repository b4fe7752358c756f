package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/tokens"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/mcpserver/search"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/suggest"
)

// Statuses of a diagnosis line.
const (
	DiagOK   = "ok"
	DiagWarn = "warn"
	DiagFail = "fail"
	// DiagSkip is a line that could not be asked (no server to ask, or
	// nothing of the kind in the workspace).
	DiagSkip = "skip"
)

// Diagnosis is what `icm doctor` and the editor's Doctor command show:
// one line per thing that must work for this workspace to run on this
// machine, and what to do next.
type Diagnosis struct {
	Workspace string     `json:"workspace"`
	Lines     []DiagLine `json:"lines"`
	// Next is the workspace's next step, as icm status says it.
	Next state.Next `json:"next"`
	// Failed counts the lines that failed.
	Failed int `json:"failed"`
}

// DiagLine is one thing checked.
type DiagLine struct {
	// ID names it: server, model, window, tools:NAME, search:NAME,
	// trust, check.
	ID string `json:"id"`
	// Title is what is checked, in a few words ("model server").
	Title  string `json:"title"`
	Status string `json:"status"`
	// Text says what was found, in words that suit every face (no
	// command, no flag).
	Text string `json:"text"`
	// Fix, on a line that failed or warns, is the one thing that fixes it.
	Fix *DiagFix `json:"fix,omitempty"`
}

// DiagFix is the fix of a line: at the terminal a command, or a setting
// to change; in the editor the action its button performs.
type DiagFix struct {
	// Command is the shell command that fixes it ("ollama serve").
	Command string `json:"command,omitempty"`
	// Setting is the setting to change, when no command does it
	// ("[model] num_ctx = 16384 in config.toml").
	Setting string `json:"setting,omitempty"`
	// Install names what to install, and from where, when neither does.
	Install string `json:"install,omitempty"`
	// Action is the editor's button.
	Action fault.Action `json:"action"`
}

// doctorWait bounds each question the doctor asks a server.
const doctorWait = 5 * time.Second

// Run diagnoses the workspace on this machine: the model server and
// its version, the model (or the nearest installed one), its window
// against the largest stage, what parallel For each items cost in
// prefill and what fixes it for the model, each tool server (started only where the
// workspace's trust allows), the search backends, the trust state, what
// the check finds, and the next step. It never fails: what it cannot
// learn is a line that says so.
func (dr Doctor) Run(ctx context.Context) *Diagnosis {
	s := dr.s
	d := &Diagnosis{Workspace: s.ws.Root}
	rep := s.Check(nil)
	trust, allowed := dr.trustLine()
	model := s.Model()
	cfg := dr.configLine(rep.Findings)
	d.add(cfg)
	var up bool
	var installed []string
	var down error
	if cfg.Status == DiagFail {
		// The settings are the defaults, not what the person wrote: the
		// server and model they name are not known, so none is asked.
		for _, l := range []DiagLine{{ID: "server", Title: "model server"}, {ID: "model", Title: "model"}, {ID: "window", Title: "context window"}} {
			l.Status, l.Text = DiagSkip, "not asked: config.toml cannot be read, so what it names is not known"
			d.add(l)
		}
	} else {
		up, installed, down = dr.server(ctx, d, model)
		dr.model(ctx, d, model, up, installed)
		dr.window(ctx, d, model, up, installed, rep.Stages)
		dr.prefill(ctx, d, model, rep)
		dr.tools(ctx, d, allowed)
		dr.search(ctx, d, allowed)
	}
	d.Lines = append(d.Lines, trust)
	d.Lines = append(d.Lines, checkLine(withoutFile(rep.Findings, dr.configPath())))
	// The next step weighs what the lines found, as icm status does.
	var facts *ModelFacts
	switch {
	case down != nil:
		facts = &ModelFacts{Down: down}
	case installed != nil:
		facts = &ModelFacts{Installed: installed, Known: true}
	}
	if p, err := s.pipeline(rep, facts); err == nil {
		d.Next = p.Next
	}
	for _, l := range d.Lines {
		if l.Status == DiagFail {
			d.Failed++
		}
	}
	return d
}

func (d *Diagnosis) add(l DiagLine) { d.Lines = append(d.Lines, l) }

// server checks the model server answers and asks its version and
// models; up says it answered, installed is what it has (nil when it
// cannot say), down why it did not answer (nil when it was not asked).
func (dr Doctor) server(ctx context.Context, d *Diagnosis, model string) (up bool, installed []string, down error) {
	s := dr.s
	l := DiagLine{ID: "server", Title: "model server"}
	if s.modelBlocked() {
		// The workspace names the server: untrusted, it is not asked.
		l.Status, l.Text = DiagSkip, "not asked: the workspace names this server and is not trusted"
		d.add(l)
		return false, nil, nil
	}
	c, err := s.newClient(llm.WithRetry(time.Second, 1))
	if err != nil {
		l.Status, l.Text = DiagFail, fault.From(err).Msg
		l.Fix = &DiagFix{Setting: "[model] in config.toml", Action: fault.Action{ID: fault.OpenFile, File: s.ws.Config.Path, Line: 1}}
		d.add(l)
		return false, nil, err
	}
	url := s.ModelServer().URL()
	where := url
	if where == "" {
		where = "the model servers"
	}
	cctx, cancel := context.WithTimeout(ctx, doctorWait)
	defer cancel()
	version, err := llm.ServerVersion(cctx, c)
	if err != nil {
		l.Status = DiagFail
		l.Text = fmt.Sprintf("nothing answers at %s", where)
		f := s.onThisMachine(fault.From(err), model)
		if f != nil && f.Msg != "" {
			l.Text = f.Msg
		}
		l.Fix = serverFix(f, url)
		d.add(l)
		return false, nil, err
	}
	l.Status, l.Text = DiagOK, fmt.Sprintf("%s answers", where)
	if version != "" {
		l.Text += " (version " + version + ")"
	}
	d.add(l)
	names, err := llm.ListModels(cctx, c)
	if err != nil {
		return true, nil, nil
	}
	return true, names, nil
}

// serverFix is the one fix of a server that does not answer: start it
// when icm knows how, install it when it is not on this machine, else
// point icm at one that runs.
func serverFix(f *fault.Error, url string) *DiagFix {
	if f != nil {
		for _, a := range f.Actions {
			switch a.ID {
			case fault.StartServer:
				return &DiagFix{Command: a.Command, Action: a}
			case fault.InstallServer:
				return &DiagFix{Install: "Ollama, from " + a.URL, Action: a}
			}
		}
	}
	return &DiagFix{Setting: "[model] base_url in config.toml (or OLLAMA_HOST)", Action: fault.Action{ID: fault.SetServer, URL: url}}
}

// installedAs finds model among the installed names ("m" is "m:latest").
func installedAs(model string, names []string) bool {
	return slices.ContainsFunc(names, func(n string) bool {
		return strings.EqualFold(n, model) || strings.EqualFold(n, model+":latest") || strings.EqualFold(n+":latest", model)
	})
}

func (dr Doctor) model(ctx context.Context, d *Diagnosis, model string, up bool, installed []string) {
	s := dr.s
	l := DiagLine{ID: "model", Title: "model"}
	switch {
	case model == "":
		l.Status, l.Text = DiagFail, "no model is named"
		l.Fix = &DiagFix{Setting: "[model] name in config.toml", Action: fault.Action{ID: fault.ChooseModel, Model: suggest.Model("", installed)}}
	case !up && s.modelBlocked():
		l.Status, l.Text = DiagSkip, model+": not asked: the workspace is not trusted"
	case !up:
		l.Status, l.Text = DiagSkip, model+": the model server did not answer"
	case installed == nil:
		l.Status, l.Text = DiagSkip, model+": the server does not list its models"
	case installedAs(model, installed):
		l.Status, l.Text = DiagOK, model+" is installed"
	default:
		l.Status = DiagFail
		l.Text = model + " is not installed"
		l.Fix = &DiagFix{Command: "icm pull " + model, Action: fault.Action{ID: fault.PullModel, Model: model, URL: s.ModelServer().URL()}}
		if typo := suggest.ModelTypo(model, installed); typo != "" {
			// A misspelling of an installed model: pulling the misspelt
			// name is never the fix, naming the installed one is.
			l.Text += "; the nearest installed is " + typo
			l.Fix = &DiagFix{Setting: fmt.Sprintf("[model] name = %q in config.toml", typo), Action: fault.Action{ID: fault.ChooseModel, Model: typo}}
		} else if near := suggest.Model(model, installed); near != "" {
			// Another size or tag of an installed family: it may be the
			// model meant, so pulling it stays the fix.
			l.Text += "; the nearest installed is " + near
		} else if len(installed) > 0 {
			l.Text += "; installed: " + strings.Join(installed, ", ")
		}
	}
	d.add(l)
}

// window compares the model's window with the largest stage's
// context (the check's count) and the room an answer needs.
func (dr Doctor) window(ctx context.Context, d *Diagnosis, model string, up bool, installed []string, stages []*check.StageReport) {
	s := dr.s
	l := DiagLine{ID: "window", Title: "context window"}
	largest, name := 0, ""
	for _, sr := range stages {
		if sr.Context != nil && sr.Context.Total > largest {
			largest, name = sr.Context.Total, sr.Stage.Name
		}
	}
	_, configured := s.ModelServer().ConfiguredWindow()
	if !configured && (!up || !installedAs(model, installed)) {
		l.Status, l.Text = DiagSkip, "the model's window cannot be asked"
		d.add(l)
		return
	}
	w, err := s.ModelServer().Window(ctx)
	switch {
	case err != nil || w <= 0:
		l.Status, l.Text = DiagSkip, "the model's window is not known"
	case largest == 0:
		l.Status, l.Text = DiagOK, human.Tokens(w)+"; no stage assembles a context"
	case largest+tokens.MinAnswerRoom > w:
		l.Status = DiagFail
		l.Text = fmt.Sprintf("%s; the largest stage, %s, needs %s with room for the answer", human.Tokens(w), name, human.Estimate(largest+tokens.MinAnswerRoom))
		need := roundUp(largest+tokens.MinAnswerRoom, 1024)
		l.Fix = &DiagFix{Setting: fmt.Sprintf("[model] num_ctx = %d in config.toml (a model with a larger window)", need),
			Action: fault.Action{ID: fault.OpenFile, File: s.ws.Config.Path, Line: 1}}
	default:
		l.Status, l.Text = DiagOK, fmt.Sprintf("%s; the largest stage, %s, needs %s with room for the answer", human.Tokens(w), name, human.Estimate(largest+tokens.MinAnswerRoom))
	}
	d.add(l)
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// tools starts each configured tool server, when trust allows, and
// lists its tools.
func (dr Doctor) tools(ctx context.Context, d *Diagnosis, allowed bool) {
	s := dr.s
	for _, name := range s.ServerNames() {
		l := DiagLine{ID: "tools:" + name, Title: "tool server " + name}
		loc, _ := s.ServerLocation(name)
		if !allowed {
			l.Status, l.Text = DiagSkip, "not started: the workspace is not trusted"
			d.add(l)
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 2*doctorWait)
		infos, err := s.Tools().List(cctx, name)
		cancel()
		if err != nil {
			l.Status, l.Text = DiagFail, "does not start: "+cause(err.Error())
			l.Fix = &DiagFix{Setting: "its entry at " + dr.relLoc(loc), Action: dr.entryAction(name)}
		} else {
			names := make([]string, len(infos))
			for i, t := range infos {
				names[i] = t.Name
			}
			l.Status, l.Text = DiagOK, fmt.Sprintf("starts and lists %d tool%s: %s", len(infos), plural(len(infos)), strings.Join(names, ", "))
		}
		d.add(l)
	}
}

// entryAction opens a server's entry where it is written.
func (dr Doctor) entryAction(name string) fault.Action {
	s := dr.s
	srv := s.box.Registry[name]
	file := srv.Source
	if file != "" && !strings.HasPrefix(file, "/") {
		file = s.ws.Abs(file)
	}
	return fault.Action{ID: fault.OpenFile, File: file, Line: max(1, srv.Line)}
}

// search asks each of icm's own search servers' SearXNG one query.
func (dr Doctor) search(ctx context.Context, d *Diagnosis, allowed bool) {
	s := dr.s
	for _, b := range s.box.SearchBackends() {
		l := DiagLine{ID: "search:" + b.Server, Title: "search backend"}
		url := b.URL
		if url == "" {
			url = search.DefaultURL
		}
		if !allowed {
			l.Status, l.Text = DiagSkip, "SearXNG at "+url+": not asked: the workspace is not trusted"
			d.add(l)
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, doctorWait)
		_, err := (&search.Client{BaseURL: url}).Search(cctx, "icm", 1)
		cancel()
		if err != nil {
			l.Status, l.Text = DiagFail, "SearXNG at "+url+" does not answer"
			l.Fix = &DiagFix{Command: dr.composeCommand("searxng"), Action: dr.entryAction(b.Server)}
		} else {
			l.Status, l.Text = DiagOK, "SearXNG at "+url+" answers"
		}
		d.add(l)
	}
}

// checkLine sums up what the check found.
func checkLine(fs []contract.Finding) DiagLine {
	l := DiagLine{ID: "check", Title: "contracts"}
	var errs, warns int
	firstFile := ""
	for _, f := range fs {
		switch f.Severity {
		case contract.Error:
			errs++
			if firstFile == "" {
				firstFile = f.File
			}
		case contract.Warning:
			warns++
		}
	}
	l.Text = fmt.Sprintf("%d error%s, %d warning%s", errs, plural(errs), warns, plural(warns))
	switch {
	case errs > 0:
		l.Status = DiagFail
		l.Fix = &DiagFix{Command: "icm check", Action: fault.Action{ID: fault.RunCheck, File: firstFile}}
	case warns > 0:
		l.Status = DiagWarn
		l.Fix = &DiagFix{Command: "icm check", Action: fault.Action{ID: fault.RunCheck}}
	default:
		l.Status = DiagOK
	}
	return l
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// cause is the last, most specific part of an error chain ("no such file
// or directory; check the command ..."), on one line.
func cause(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, ": "); i >= 0 && i+2 < len(s) {
		s = s[i+2:]
	}
	return s
}

// relLoc writes a "file:line" location inside the workspace relative to it.
func (dr Doctor) relLoc(loc string) string {
	s := dr.s
	if rest, ok := strings.CutPrefix(loc, s.ws.Root+string(filepath.Separator)); ok {
		return filepath.ToSlash(rest)
	}
	return loc
}

// composeCommand is the command that starts service from icm's
// docker/compose.yml, runnable from any folder: the file's full path when
// it sits beside the icm that runs (bin/icm of a checkout), else the path
// within the icm repository, said so.
func (dr Doctor) composeCommand(service string) string {
	s := dr.s
	if s.opts.Self != "" {
		file := filepath.Join(filepath.Dir(filepath.Dir(s.opts.Self)), "docker", "compose.yml")
		if info, err := os.Stat(file); err == nil && info.Mode().IsRegular() {
			return "docker compose -f " + file + " up -d " + service
		}
	}
	return "docker compose -f docker/compose.yml up -d " + service + " (in the icm repository)"
}
