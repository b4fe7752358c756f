package lsp

import (
	"github.com/icm-tool/icm/server/internal/fault"
)

// setupCommand answers icm.setupPlan (what icm setup would ask) and
// icm.setupSave (write the answers to [vars] in config.toml), through the
// workspace's session.
func (s *Server) setupCommand(st *wsState, command string, args commandArgs) (any, error) {
	o, err := st.acquire()
	if err != nil {
		return nil, err
	}
	defer o.release()
	if command == cmdSetupPlan {
		return o.sess.SetupPlan(args.All)
	}
	if len(args.Vars) == 0 {
		return nil, fault.InvalidRequest(cmdSetupSave+" needs the answers", "pass {workspace, vars: {NAME: value}}")
	}
	path, err := o.sess.SaveVars(args.Vars)
	if err != nil {
		return nil, err
	}
	// config.toml changed: read the workspace again, as after an edit.
	st.touch(true)
	s.statusMayHaveChanged(st)
	return map[string]any{"saved": len(args.Vars), "file": path}, nil
}
