package workspace

import "github.com/icm-tool/icm/server/internal/config"

// LoadConfig reads dir's config.toml over the defaults through a Root of
// dir, as a workspace's own is read when it is opened: only a regular
// file, capped, and never through a link that leads out of dir (that is
// an EscapeError naming the link). A missing file is not an error; a
// malformed one is, with its line. It is for a folder icm uses without
// opening it as a workspace (one that holds only a config.toml).
func LoadConfig(dir string) (config.Config, error) {
	r, err := OpenRoot(dir, RootOptions{ReadOnly: true})
	if err != nil {
		return config.Defaults(), err
	}
	defer r.Close()
	return loadConfig(r)
}
