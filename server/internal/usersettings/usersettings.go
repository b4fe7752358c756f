// Package usersettings reads the person's own icm settings: a file in
// their config folder (~/.config/icm/settings.toml on Linux), never in a
// workspace. What only the person may decide lives here, out of reach of
// the workspaces they open: whether coding agents may approve stages over
// MCP, and whether the stages' models may read the whole workspace.
package usersettings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/icm-tool/icm/server/internal/fault"
)

// ConfigDirEnv moves the user's icm config folder (tests use a
// temporary one).
const ConfigDirEnv = "ICM_CONFIG_DIR"

// FileName is the settings file inside the config folder.
const FileName = "settings.toml"

// maxSize caps the file: a larger one is an error, never an allocation.
const maxSize = 64 << 10

// Settings are the person's own settings.
type Settings struct {
	Agents Agents `toml:"agents"`
	Reads  Reads  `toml:"reads"`
	// Path is the file they were read from ("" when there is none).
	Path string `toml:"-"`
}

// Agents are what coding agents may do over the workspace MCP server.
type Agents struct {
	// Approve offers agents an approve tool. Their approvals are recorded
	// as an agent's (agent:NAME) and shown apart from a person's.
	Approve bool `toml:"approve"`
}

// Reads are what the stages' models may read through icm's read tool.
type Reads struct {
	// Workspace lets them read any file of the workspace, not only the
	// files their contracts name (hidden files and .git never).
	Workspace bool `toml:"workspace"`
}

// Dir is the user's icm config folder: $ICM_CONFIG_DIR, else
// $XDG_CONFIG_HOME/icm, else the platform's config folder's icm/; an
// error when there is none or ICM_CONFIG_DIR is not absolute.
func Dir(getenv func(string) string) (string, error) {
	if d := strings.TrimSpace(getenv(ConfigDirEnv)); d != "" {
		if !filepath.IsAbs(d) {
			return "", fault.ConfigInvalid(fmt.Sprintf("%s=%q is not an absolute path", ConfigDirEnv, d), dirHint, "")
		}
		return d, nil
	}
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "icm"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fault.ConfigInvalid(errNoFolder.Error(), dirHint, "").Because(errNoFolder)
	}
	return filepath.Join(d, "icm"), nil
}

// errNoFolder is a user with no config folder (no home): their settings
// are the defaults.
var errNoFolder = fmt.Errorf("this account has no config folder (no home folder): set %s to one", ConfigDirEnv)

// dirHint is what to do when there is no usable config folder.
const dirHint = "set " + ConfigDirEnv + " to the absolute path of a folder of yours"

// Load reads the settings file. No file means the defaults. A file that
// lies inside one of the workspaces (a config folder pointed into one)
// is refused: a workspace never decides what only its person may.
func Load(getenv func(string) string, workspaces ...string) (Settings, error) {
	dir, err := Dir(getenv)
	if errors.Is(err, errNoFolder) {
		return Settings{}, nil
	}
	if err != nil {
		return Settings{}, err
	}
	p := filepath.Join(dir, FileName)
	data, err := readCapped(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{}, nil
	}
	if err != nil {
		return Settings{}, err
	}
	if ws := inside(p, workspaces); ws != "" {
		return Settings{}, badFile(p, fmt.Sprintf("move it out of the workspace, or unset %s", ConfigDirEnv),
			"%s is inside the workspace %s: the person's own settings live outside every workspace; move it (or unset %s)", p, ws, ConfigDirEnv)
	}
	var s Settings
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&s)
	if err != nil {
		return Settings{}, badFile(p, "fix the file: it is TOML", "%s: %v", p, err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		keys := make([]string, len(un))
		for i, k := range un {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return Settings{}, badFile(p, "remove the unknown settings", "%s: unknown setting %s; the settings are [agents] approve and [reads] workspace", p, strings.Join(keys, ", "))
	}
	s.Path = p
	return s, nil
}

// badFile is a settings file icm cannot use, with what to do about it.
func badFile(path, hint, format string, args ...any) *fault.Error {
	return fault.ConfigInvalid(fmt.Sprintf(format, args...), hint, path)
}

// readCapped reads a regular file of at most maxSize bytes.
func readCapped(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, badFile(p, "replace it with a regular file", "%s is not a regular file", p)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return nil, fmt.Errorf("unable to read %s: %w", p, err)
	}
	if len(data) > maxSize {
		return nil, badFile(p, "keep only the settings in it", "%s is over %d KB, more than settings take", p, maxSize>>10)
	}
	return data, nil
}

// inside returns the workspace that holds p (links resolved), or "".
func inside(p string, workspaces []string) string {
	real := p
	if r, err := filepath.EvalSymlinks(p); err == nil {
		real = r
	}
	for _, ws := range workspaces {
		root := ws
		if r, err := filepath.EvalSymlinks(ws); err == nil {
			root = r
		}
		if rel, err := filepath.Rel(root, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return ws
		}
	}
	return ""
}
