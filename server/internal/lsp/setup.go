package lsp

import (
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/lsp/snapshot"
)

// setupCommand answers icm.setupPlan (what icm setup would ask) and
// icm.setupSave (write the answers to [vars] in config.toml), through the
// workspace's session.
func (s *Server) setupCommand(st *snapshot.Workspace, command string, args commandArgs) (any, error) {
	o, err := st.Acquire()
	if err != nil {
		return nil, err
	}
	defer o.Release()
	if command == cmdSetupPlan {
		return o.Session().SetupPlan(args.All)
	}
	if len(args.Vars) == 0 {
		return nil, fault.InvalidRequest(cmdSetupSave+" needs the answers", "pass {workspace, vars: {NAME: value}}")
	}
	path, err := o.Session().SaveVars(args.Vars)
	if err != nil {
		return nil, err
	}
	// config.toml changed: read the workspace again, as after an edit.
	st.Touch(true)
	s.statusMayHaveChanged(st)
	return map[string]any{"saved": len(args.Vars), "file": path}, nil
}
