package lsp

import (
	"context"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// setupPlan runs icm.setupPlan: what icm setup would ask, through the
// workspace's session.
func setupPlan(_ context.Context, _ *env, w *snapshot.Workspace, args commandArgs) (any, error) {
	o, err := w.Acquire()
	if err != nil {
		return nil, err
	}
	defer o.Release()
	return o.Session().Setup().Plan(args.All)
}

// setupSave runs icm.setupSave: it writes the answers to [vars] in
// config.toml, through the workspace's session.
func setupSave(_ context.Context, e *env, w *snapshot.Workspace, args commandArgs) (any, error) {
	o, err := w.Acquire()
	if err != nil {
		return nil, err
	}
	defer o.Release()
	if len(args.Vars) == 0 {
		return nil, fault.InvalidRequest(cmdSetupSave+" needs the answers", "pass {workspace, vars: {NAME: value}}")
	}
	path, err := o.Session().Setup().SaveVars(args.Vars)
	if err != nil {
		return nil, err
	}
	// config.toml changed: read the workspace again, as after an edit.
	w.Touch(true)
	e.statusChanged(w)
	return map[string]any{"saved": len(args.Vars), "file": path}, nil
}
