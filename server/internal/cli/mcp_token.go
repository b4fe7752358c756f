package cli

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/usersettings"
	"github.com/icm-tool/icm/server/internal/wsmcp/mcpgate"
)

// tokenEnv is the variable a client's configuration reads the workspace
// server's token from, so the token itself is never written into a
// project's files.
const tokenEnv = "ICM_MCP_TOKEN"

// serverToken is the token the workspace server asks every HTTP request
// for, kept in the person's config folder (made on first use), and its
// file.
func serverToken(env *Env) (token, file string, err error) {
	dir, err := usersettings.Dir(env.Getenv)
	if err != nil {
		return "", "", fault.ConfigInvalid(fmt.Sprintf("unable to find the config folder that keeps the workspace server's token: %v", err),
			"set ICM_CONFIG_DIR to a folder of yours", "")
	}
	token, file, err = mcpgate.Token(dir)
	if err != nil {
		return "", "", fault.From(err)
	}
	return token, file, nil
}
