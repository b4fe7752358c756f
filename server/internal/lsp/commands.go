package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// Commands and notifications of docs/lsp-protocol.md.
const (
	cmdStatus     = "icm.status"
	cmdRunNext    = "icm.runNext"
	cmdRunStage   = "icm.runStage"
	cmdRunAll     = "icm.runAll"
	cmdCancel     = "icm.cancel"
	cmdApprove    = "icm.approveStage"
	cmdProbe      = "icm.probe"
	cmdOutputs    = "icm.outputs"
	cmdCreateFile = "icm.createFile"

	notifyStatusChanged = "icm/statusChanged"
	notifyRunFinished   = "icm/runFinished"
)

// Commands of the review on the output itself, the run view and the
// documents the server provides (docs/lsp-protocol.md).
const (
	cmdVirtualDocument = "icm.virtualDocument"
	cmdRuns            = "icm.runs"
	cmdCompareOutput   = "icm.compareOutput"
	cmdRunItem         = "icm.runItem"
	cmdItemAt          = "icm.itemAt"
	cmdModelStatus     = "icm.modelStatus"
	cmdPullModel       = "icm.pullModel"
)

// verbs name the snapshot's offers on the wire: the commands the server
// runs, and the two the editor runs itself (outputlens.go).
var verbs = map[snapshot.Verb]string{
	snapshot.VerbStatus:    cmdStatus,
	snapshot.VerbRunStage:  cmdRunStage,
	snapshot.VerbRunAll:    cmdRunAll,
	snapshot.VerbApprove:   cmdApprove,
	snapshot.VerbProbe:     cmdProbe,
	snapshot.VerbTest:      cmdTestRun,
	snapshot.VerbTrust:     cmdTrustList,
	snapshot.VerbCompare:   clientCompare,
	snapshot.VerbRerunItem: clientRerunItem,
}

// commandOf is an offer as a protocol command, its target as the one
// object a command takes.
func commandOf(o snapshot.Offer) *protocol.Command {
	arg := map[string]any{"workspace": o.On.Workspace}
	if o.On.Stage != "" {
		arg["stage"] = o.On.Stage
	}
	if o.On.Path != "" {
		arg["path"] = o.On.Path
	}
	if o.On.Item > 0 {
		arg["item"] = o.On.Item
	}
	if o.On.Proposal {
		arg["proposal"] = true
	}
	if o.On.ItemTitle != nil {
		arg["title"] = *o.On.ItemTitle
	}
	// A state lens carries the state in full and the line's other
	// offers: a client may show them as a hover and a menu (the VS Code
	// extension does); any other runs the command (icm.status) as it is.
	if o.Full != "" && o.Full != o.Title {
		arg["state"] = o.Full
	}
	if len(o.More) > 0 {
		more := make([]*protocol.Command, 0, len(o.More))
		for _, m := range o.More {
			more = append(more, commandOf(m))
		}
		arg["actions"] = more
	}
	return &protocol.Command{Title: o.Title, Command: verbs[o.Verb], Arguments: []any{arg}}
}

// Client commands the output lenses name: the extension runs them itself
// (a diff, a prompt for a note) and calls the server from there.
const (
	clientCompare   = "icm.output.compare"
	clientRerunItem = "icm.output.rerunItem"
)

// commandArgs is the one JSON object every command takes.
type commandArgs struct {
	Workspace string `json:"workspace"`
	Stage     string `json:"stage"`
	Force     bool   `json:"force"`
	// Committed answers the question about outputs committed with the
	// workspace for a run: "adopt" or "regenerate" (icm.runStage,
	// icm.runNext, icm.runAll).
	Committed string `json:"committed"`
	Item      int    `json:"item"`
	Path      string `json:"path"`
	// Proposal asks icm.compareOutput for the change a run proposes to
	// Path (a file outside output/), not the model's version of an output.
	Proposal bool `json:"proposal"`
	testArgs
	// URI names a document the server provides (icm.virtualDocument),
	// or an open one (icm.itemAt, with Line, 0-based).
	URI  string `json:"uri"`
	Line int    `json:"line"`
	// Note is a person's feedback for one item's call (icm.runItem), or
	// what they say of an approval (icm.approveStage: needed with force).
	Note string `json:"note"`
	// RunID, Index and Call name one model call of a run.
	RunID string `json:"runId"`
	Index int    `json:"index"`
	Call  int    `json:"call"`
	// Model names a model (icm.pullModel).
	Model string `json:"model"`
	// Hash is the trust list a person was shown (icm.trustGrant).
	Hash string `json:"hash"`
	// Vars are setup answers (icm.setupSave); All asks again for what is
	// set already (icm.setupPlan).
	Vars map[string]string `json:"vars"`
	All  bool              `json:"all"`
	// Table, Key, Value and Current name a config.toml key, the value to
	// give it and the one it must have now (icm.editConfig).
	Table   string          `json:"table"`
	Key     string          `json:"key"`
	Value   json.RawMessage `json:"value"`
	Current json.RawMessage `json:"current"`
}

// A command is one workspace/executeCommand command. run is given the
// workspace its arguments name (or the only one known); free is for a
// command that names none, or one optionally.
type command struct {
	name string
	run  func(ctx context.Context, e *env, w *snapshot.Workspace, args commandArgs) (any, error)
	free func(ctx context.Context, e *env, args commandArgs) (any, error)
}

// commandTable is every command the server runs, in the order initialize
// lists them (docs/lsp-protocol.md). Each function lives in the file of
// what it is about.
var commandTable = []command{
	{name: cmdStatus, free: statusCommand},
	{name: cmdRunNext, run: runNext},
	{name: cmdRunStage, run: runStage},
	{name: cmdRunAll, run: runAll},
	{name: cmdCancel, run: cancelRun},
	{name: cmdApprove, run: approve},
	{name: cmdProbe, run: probe},
	{name: cmdOutputs, run: outputs},
	{name: cmdCreateFile, run: createFile},
	{name: cmdTestList, free: testList},
	{name: cmdTestRun, run: testRun},
	{name: cmdTestCancel, free: testCancel},
	{name: cmdTrustList, run: trustList},
	{name: cmdTrustGrant, run: trustGrant},
	{name: cmdVirtualDocument, free: virtualDocument},
	{name: cmdRuns, run: runsOf},
	{name: cmdCompareOutput, run: compareOutput},
	{name: cmdRunItem, run: runItem},
	{name: cmdItemAt, free: itemAt},
	{name: cmdModelStatus, run: modelStatusOf},
	{name: cmdPullModel, run: pullModel},
	{name: cmdDoctor, run: doctor},
	{name: cmdSetupPlan, run: setupPlan},
	{name: cmdSetupSave, run: setupSave},
	{name: cmdEditConfig, run: editConfig},
}

// allCommands is every command the server executes.
func allCommands() []string {
	out := make([]string, 0, len(commandTable))
	for _, c := range commandTable {
		out = append(out, c.name)
	}
	return out
}

// needsStage lists the commands that act on one stage.
var needsStage = map[string]bool{cmdRunStage: true, cmdApprove: true, cmdProbe: true, cmdOutputs: true}

// executeCommand answers workspace/executeCommand at once: long commands
// start work on goroutines and report through progress and
// notifications.
func executeCommand(ctx context.Context, e *env, p *protocol.ExecuteCommandParams) (any, error) {
	var args commandArgs
	if len(p.Arguments) > 0 && p.Arguments[0] != nil {
		raw, err := json.Marshal(p.Arguments[0])
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fault.InvalidRequest(fmt.Sprintf("%s takes one object argument: %v", p.Command, err),
				"pass {workspace, stage, ...} as the command's one argument")
		}
	}
	if needsStage[p.Command] && strings.TrimSpace(args.Stage) == "" {
		return nil, fault.InvalidRequest(p.Command+" needs a stage", "pass {workspace, stage}, stage being a stage folder's name such as 01-scope")
	}
	for _, c := range commandTable {
		if c.name != p.Command {
			continue
		}
		if c.free != nil {
			return c.free(ctx, e, args)
		}
		w, err := e.workspace(args)
		if err != nil {
			return nil, err
		}
		return c.run(ctx, e, w, args)
	}
	return nil, fault.UnknownCommand(p.Command, allCommands())
}

// createFile runs icm.createFile: an empty input file the contract names
// (the quick fix for a missing input, for clients that cannot create
// files themselves).
func createFile(_ context.Context, _ *env, w *snapshot.Workspace, args commandArgs) (any, error) {
	op, err := w.Acquire()
	if err != nil {
		return nil, err
	}
	defer op.Release()
	ws := op.Workspace()
	p := args.Path
	if p == "" {
		return nil, fault.InvalidRequest(cmdCreateFile+" needs a path", "pass {workspace, path}, path relative to the workspace")
	}
	rel := p
	if filepath.IsAbs(p) {
		rel = ws.Rel(p)
	}
	abs, err := ws.Resolve(ws.Root, rel)
	if err != nil {
		return nil, err
	}
	if _, err := ws.Disk.Lstat(abs); err == nil {
		return map[string]any{"created": false, "uri": uriOf(abs)}, nil
	}
	if err := ws.Disk.WriteFile(abs, nil, 0o644); err != nil {
		return nil, err
	}
	w.Touch(false)
	return map[string]any{"created": true, "uri": uriOf(abs)}, nil
}
