package workspace

import (
	"path/filepath"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/fault"
)

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

// ConfigFault is the workspace's config.toml problem as a fault, nil when
// its settings were read. No command acts on a workspace whose settings
// it could not read (a run, an approval, a test): the defaults it holds
// instead are not what the person wrote.
func (w *Workspace) ConfigFault() *fault.Error {
	if w.ConfigErr == nil {
		return nil
	}
	file, line := config.Where(w.ConfigErr)
	if file == "" {
		file = filepath.Join(w.Root, config.FileName)
	}
	return fault.ConfigInvalid(w.ConfigErr.Error(),
		"fix config.toml: icm uses none of its settings until it reads, and acts on none of the defaults instead (icm check lists each problem)",
		file).At(file, line).Because(w.ConfigErr)
}
