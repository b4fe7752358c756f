package session

import (
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/trust"
	"github.com/icm-tool/icm/server/internal/usersettings"
)

// readsWorkspace reports whether the stages' models may read any file of
// the workspace through icm's read tool, not only those their contracts
// name: the person's own settings say so ([reads] workspace), or the
// workspace's config.toml asks and the person trusted it for that (a
// part of trust: a workspace cannot widen its own reads).
func (s *Session) readsWorkspace() (bool, error) {
	user, err := usersettings.Load(s.opts.Getenv, s.ws.Root)
	if err != nil {
		return false, fault.ConfigInvalid(err.Error(), "fix the settings file, or remove it", "")
	}
	if user.Reads.Workspace {
		return true, nil
	}
	asked := s.ws.Config.Reads.Workspace && s.trust.Parts.Names(trust.ReadsWorkspace, trust.ReadsValue)
	return asked && s.trust.Allowed(), nil
}
