package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/textnorm"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Settings are the model settings a stage runs with, after the contract's
// Model section is laid over config.toml and a command-line override.
type Settings struct {
	Provider    string   `json:"provider"`
	Models      []string `json:"models"`
	Temperature *float64 `json:"temperature,omitempty"`
	Think       *bool    `json:"think,omitempty"`
	NumCtx      int      `json:"num_ctx,omitempty"`
	MaxOutput   int      `json:"max_output,omitempty"`
	Format      string   `json:"format,omitempty"`
}

// Model returns the first model of the list.
func (s Settings) Model() string {
	if len(s.Models) == 0 {
		return ""
	}
	return s.Models[0]
}

// Hash fingerprints the settings that change what the model produces.
func (s Settings) Hash() string {
	data, _ := json.Marshal(s)
	return Hash(data)
}

// Override returns the settings with model, when set, in place of the
// configured models (fallbacks included): what a run with a one-off
// model calls.
func (s Settings) Override(model string) Settings {
	if model != "" {
		s.Models = []string{model}
	}
	return s
}

// ResolveSettings lays a contract's Model section over the workspace
// config; override, when set, replaces the model of every stage (the
// editor's icm.model setting): a configured setting like the others.
func ResolveSettings(cfg config.Model, m *contract.Model, override string) Settings {
	s := Settings{Provider: cfg.Provider, Temperature: cfg.Temperature, Think: cfg.Think, NumCtx: cfg.NumCtx, MaxOutput: cfg.MaxOutput}
	if cfg.Name != "" {
		s.Models = []string{cfg.Name}
	}
	if m != nil {
		if len(m.Models) > 0 {
			s.Models = append([]string(nil), m.Models...)
		}
		if m.Temperature != nil {
			s.Temperature = m.Temperature
		}
		if m.Think != nil {
			s.Think = m.Think
		}
		if m.NumCtx > 0 {
			s.NumCtx = m.NumCtx
		}
		if m.MaxOutput > 0 {
			s.MaxOutput = m.MaxOutput
		}
		s.Format = m.Format
	}
	if override != "" {
		s.Models = []string{override}
	}
	return s
}

// Reads lists the workspace-relative paths of every file a stage's run
// reads: identity and routing (and the files they bring in), the
// contract, its file inputs, the For each source and schema files. The
// files the model chose to read are the run's own (Record.Reads). Paths that escape the workspace are left out
// (check reports them).
func Reads(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract) []string {
	// Without an identity file, CLAUDE.md is still watched (as missing), so
	// that adding one makes the stage stale.
	identity := ws.Identity
	if identity == "" {
		identity = workspace.IdentityFile
	}
	set := map[string]bool{identity: true, workspace.RoutingFile: true, st.ContractRel(): true}
	// The files they bring in (`@path` lines, the file a pointer leads
	// to) are read too.
	for _, rel := range assemble.Brought(ws) {
		set[rel] = true
	}
	addRel := func(p string) {
		if abs, err := ws.Resolve(st.Dir, p); err == nil {
			set[ws.Rel(abs)] = true
		}
	}
	for _, in := range c.Inputs {
		if in.NonFile || in.Path == "" {
			continue
		}
		loc, err := assemble.Locate(ws, st, in)
		switch {
		case err != nil:
		case in.Glob || in.Templated:
			// What the pattern matched is what the run read.
			for _, f := range loc.Files {
				set[ws.InputRel(f)] = true
			}
		default:
			// A shared file is named "/..." (its place in the repository).
			set[loc.Rel] = true
		}
	}
	// The stage's own previous output is read to be revised; it changing
	// is the run's doing, not a reason to run again.
	for rel := range set {
		if assemble.OwnOutput(st, rel) {
			delete(set, rel)
		}
	}
	if c.ForEach != nil {
		addRel(c.ForEach.Path)
	}
	if c.Model != nil && c.Model.Format != "" && c.Model.Format != "json" {
		addRel(c.Model.Format)
	}
	for _, v := range c.Verify {
		if v.Kind == contract.CheckJSONSchema {
			addRel(v.Arg)
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Refused is the hash recorded for a file icm will not read (one that
// leads outside the workspace, is not a regular file, or is over the read
// cap): check reports it, and the stage cannot run while it is so.
const Refused = "refused"

// Fingerprint hashes every file a stage reads, as the model would see it
// (a byte order mark dropped, CRLF as LF: the same text hashes the same).
// A folder input hashes the names and contents of the files it loads.
func Fingerprint(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract) (map[string]string, error) {
	out := map[string]string{}
	for _, rel := range Reads(ws, st, c) {
		h, err := inputHash(ws, ws.InputAbs(rel))
		if err != nil {
			return nil, err
		}
		out[rel] = h
	}
	return out, nil
}

// inputHash hashes one input: a file's normalised text, or a folder's files.
func inputHash(ws *workspace.Workspace, abs string) (string, error) {
	info, err := ws.StatInput(abs)
	if h, done, err := unreadHash(ws, abs, err); done {
		return h, err
	}
	if info.IsDir() {
		return folderHash(ws, abs)
	}
	data, err := ws.ReadInput(abs)
	if h, done, err := unreadHash(ws, abs, err); done {
		return h, err
	}
	return ContentHash(data), nil
}

// ContentHash hashes a file's content as a run reads it: a text file's
// normalised text (a byte order mark dropped, CRLF as LF), a binary
// file's bytes.
func ContentHash(data []byte) string {
	if document.IsBinary(data) {
		return Hash(data)
	}
	return Hash(textnorm.Text(data))
}

// ReadHashes hashes the files of a record's Reads as they are now.
func ReadHashes(ws *workspace.Workspace, reads Hashes) (Hashes, error) {
	out := Hashes{}
	for rel := range reads {
		h, err := inputHash(ws, ws.InputAbs(rel))
		if err != nil {
			return nil, err
		}
		out[rel] = h
	}
	return out, nil
}

// unreadHash is what a read error makes of an input's hash: Missing for
// a file that is not there, Refused for one icm will not read, an error
// otherwise; done is false when there was no error.
func unreadHash(ws *workspace.Workspace, abs string, err error) (h string, done bool, _ error) {
	switch {
	case err == nil:
		return "", false, nil
	case errors.Is(err, fs.ErrNotExist):
		return Missing, true, nil
	case workspace.Refused(err):
		return Refused, true, nil
	}
	return "", true, fmt.Errorf("unable to read %s: %w", ws.Rel(abs), err)
}

// folderHash hashes the files a folder input loads, names and contents, so
// adding, removing, renaming or changing one changes the hash.
func folderHash(ws *workspace.Workspace, dir string) (string, error) {
	files, _, err := ws.FolderFiles(dir)
	if workspace.Refused(err) {
		return Refused, nil
	}
	if err != nil {
		return "", fmt.Errorf("unable to list %s: %w", ws.Rel(dir), err)
	}
	h := sha256.New()
	for _, f := range files {
		fh, err := inputHash(ws, f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(dir, f)
		fmt.Fprintf(h, "%s\x00%s\n", filepath.ToSlash(rel), fh)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// OutputPaths lists a stage's current output files, workspace-relative:
// the declared outputs, plus whatever sits in output/ when an output is a
// folder or holds a placeholder, or when the contract names no file there
// (the model names them). The folder is walked through the workspace's
// Root: a link in it is not followed.
func OutputPaths(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract) []string {
	set := map[string]bool{}
	scan := true
	for _, o := range c.Outputs {
		if !o.NonFile && o.Path != "" {
			scan = false
		}
	}
	for _, o := range c.Outputs {
		if o.NonFile || o.Path == "" {
			continue
		}
		if o.Templated || o.Dir {
			scan = true
			continue
		}
		set[path.Join(st.Rel, o.Path)] = true
	}
	if scan {
		root := path.Join(st.Rel, workspace.OutputDir)
		_ = ws.Disk.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() && p != root {
					return fs.SkipDir
				}
				return nil
			}
			if !d.IsDir() {
				set[p] = true
			}
			return nil
		})
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// OutputHashes hashes a stage's current outputs (Missing for absent ones).
// An output icm will not read (a link out of the workspace, a named pipe)
// is an error naming it.
func OutputHashes(ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract) (Hashes, error) {
	out := Hashes{}
	for _, rel := range OutputPaths(ws, st, c) {
		h, err := HashFile(ws.Disk, rel)
		if err != nil {
			return nil, err
		}
		out[rel] = h
	}
	return out, nil
}
