package fault

import (
	"path/filepath"
)

// ActionID names a fix a person may pick. Its value is what the wire
// carries (docs/lsp-protocol.md).
type ActionID string

// Actions. Keep each one in the actions table below; the fields an
// action uses are listed with it.
const (
	// Approve approves Stage as it is now (the person's edit included).
	Approve ActionID = "approve"
	// ApproveAnyway approves Stage despite failing Verify checks, a stale
	// stage or a failed run.
	ApproveAnyway ActionID = "approve-anyway"
	// RunStage runs Stage again.
	RunStage ActionID = "run-stage"
	// RunAnyway runs Stage again, overwriting an edit nobody approved
	// (the edited version is kept in history).
	RunAnyway ActionID = "run-anyway"
	// OpenFile opens File at Line.
	OpenFile ActionID = "open-file"
	// PullModel downloads Model onto the server at URL.
	PullModel ActionID = "pull-model"
	// StartServer starts the model server expected at URL; Command is how,
	// when icm knows (Ollama's `ollama serve`).
	StartServer ActionID = "start-server"
	// ChooseModel names another model for the workspace (Model, when set,
	// is the installed one the missing model was probably meant to be).
	ChooseModel ActionID = "choose-model"
	// SetServer points icm at another model server.
	SetServer ActionID = "set-server"
	// ShowDiff compares Stage's output with the version kept before it.
	ShowDiff ActionID = "show-diff"
	// CompareModel compares Stage's output with what the model wrote: a
	// person's edit.
	CompareModel ActionID = "compare-model"
	// RunCheck lists every problem of the workspace (what `icm check`
	// and the editor's diagnostics show).
	RunCheck ActionID = "run-check"
	// InstallServer installs the model server that is not on this
	// machine: URL is where to get it, Model the model to pull after.
	InstallServer ActionID = "install-server"
	// TryDemo runs icm's demo (`icm demo`, Command): the sample pipeline
	// with canned answers, for when no model server can run yet.
	TryDemo ActionID = "try-demo"
	// TrustWorkspace shows what the workspace at File would be allowed
	// and trusts it when the person agrees (`icm trust`, the editor's
	// "Trust this workspace").
	TrustWorkspace ActionID = "trust-workspace"
	// Adopt keeps the outputs committed with the workspace as approved
	// (`icm run --adopt`, with Stage when the run was for one).
	Adopt ActionID = "adopt"
	// Regenerate runs the stages whose outputs were committed with the
	// workspace again, the committed files kept in history (`icm run
	// --regenerate`, with Stage when the run was for one).
	Regenerate ActionID = "regenerate"
)

// Action is one fix, with what it acts on.
type Action struct {
	ID ActionID `json:"id"`
	// Stage is the stage acted on (approve, run, diff).
	Stage string `json:"stage,omitempty"`
	// File and Line are what open-file opens (absolute path, 1-based line).
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Model is what pull-model downloads (and install-server pulls
	// after), the model choose-model suggests ("" when it has none).
	Model string `json:"model,omitempty"`
	// URL is the model server start-server and pull-model mean, and the
	// page install-server gets the server from.
	URL string `json:"url,omitempty"`
	// Command is how start-server starts it, when known, and the
	// command try-demo runs.
	Command string `json:"command,omitempty"`
}

type actionInfo struct {
	// title is a button's label; %s, when present, takes the action's
	// object (file name or model).
	title  string
	object func(Action) string
}

var actions = map[ActionID]actionInfo{
	Approve:        {title: "Approve"},
	ApproveAnyway:  {title: "Approve anyway"},
	RunStage:       {title: "Run the stage"},
	RunAnyway:      {title: "Run and overwrite"},
	OpenFile:       {title: "Open ", object: func(a Action) string { return filepath.Base(a.File) }},
	PullModel:      {title: "Pull ", object: func(a Action) string { return a.Model }},
	StartServer:    {title: "Start the model server"},
	ChooseModel:    {title: "Choose a model"},
	SetServer:      {title: "Set the model server"},
	ShowDiff:       {title: "Compare with the previous version"},
	CompareModel:   {title: "Compare with the model's version"},
	RunCheck:       {title: "Show the problems"},
	InstallServer:  {title: "Install Ollama"},
	TryDemo:        {title: "Try the demo"},
	TrustWorkspace: {title: "Trust this workspace"},
	Adopt:          {title: "Keep them as approved"},
	Regenerate:     {title: "Regenerate them"},
}

// Title is a short label for a button or a menu entry.
func (a Action) Title() string {
	i, ok := actions[a.ID]
	if !ok {
		return string(a.ID)
	}
	if i.object != nil {
		return i.title + i.object(a)
	}
	return i.title
}

// Known reports whether id is one of the actions above.
func (id ActionID) Known() bool {
	_, ok := actions[id]
	return ok
}
