package state

import (
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// meantHash is the hash of the settings a stage would run with had
// config.toml's misspelt keys been spelt right ("temprature" read as
// "temperature"): "" when it has none. A slip of the keys is not applied
// (check says so), and is no change of settings a stage goes stale over:
// its state is judged by what the person meant. settings are the
// settings as they are, with any override of the model.
func meantHash(ws *workspace.Workspace, c *contract.Contract, settings Settings) string {
	if len(ws.Config.Misspelt) == 0 {
		return ""
	}
	meant := ResolveSettings(ws.Config.Meant().Model, c.Model, "")
	if ResolveSettings(ws.Config.Model, c.Model, "").Model() != settings.Model() {
		// A one-off model stands in for the configured one: it does for
		// the meant settings too.
		meant.Models = settings.Models
	}
	return meant.Hash()
}
