package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/icm-tool/icm/server/internal/usersettings"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// recordsDir is the folder of trust records inside the config folder.
const recordsDir = "trusted"

// maxRecord caps one record file: a larger one is unreadable, never an
// allocation.
const maxRecord = 1 << 20

// recordVersion is the record format written. Version 2 pins the files
// each command runs by their content (Part.Pins); a record of version 1
// pinned the command lines only, so it no longer stands for what the
// person would be trusting: such a workspace is untrusted, with a note
// saying to trust it once more.
const recordVersion = 2

// Store keeps trust records, one file per workspace.
type Store struct {
	// Dir is the folder holding the records.
	Dir string
}

// StoreFor is the store in the user's config folder (usersettings.Dir:
// $ICM_CONFIG_DIR, else the platform's config folder's icm/), read
// through getenv.
func StoreFor(getenv func(string) string) (Store, error) {
	base, err := usersettings.Dir(getenv)
	if err != nil {
		return Store{}, fmt.Errorf("unable to find the user's config folder for trust records: %w", err)
	}
	return Store{Dir: filepath.Join(base, recordsDir)}, nil
}

// Record is a person's grant: the workspace, what it named when they
// granted it, and when and how.
type Record struct {
	Version int `json:"version"`
	// Path is the workspace's real path.
	Path string `json:"path"`
	// Hash is Parts' hash (Parts.Hash).
	Hash  string    `json:"hash"`
	Parts Parts     `json:"parts"`
	Time  time.Time `json:"time"`
	// By says how it was granted: "icm trust", "the editor", "a copy of
	// /path".
	By string `json:"by"`
}

// file is the record's file name for a workspace: a hash of its real
// path (a path may hold any character).
func (s Store) file(root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:16])+".json")
}

// RealPath is the key a workspace's record has: its absolute path with
// symlinks resolved.
func RealPath(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return root
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// Load returns the workspace's record; nil with no error when there is
// none. A record that cannot be read (not a regular file, too large,
// not icm's format, another path's, parts that do not match its hash)
// is an error: the caller treats the workspace as untrusted and says why.
func (s Store) Load(root string) (*Record, error) {
	root = RealPath(root)
	path := s.file(root)
	data, err := workspace.ReadFileAt(path, maxRecord)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the trust record %s is unreadable: %w", path, err)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("the trust record %s is not icm's: %w", path, err)
	}
	switch {
	case r.Version < recordVersion:
		return nil, fmt.Errorf("the trust record %s was written by an older icm, which did not pin the files the workspace's commands run: look at the list again and trust it once more", path)
	case r.Version > recordVersion:
		return nil, fmt.Errorf("the trust record %s has version %d, written by a newer icm; this icm writes %d: trust the workspace again with this icm, or use the newer one", path, r.Version, recordVersion)
	case r.Path != root:
		return nil, fmt.Errorf("the trust record %s is for %s, not %s", path, r.Path, root)
	case r.Parts.Hash() != r.Hash:
		return nil, fmt.Errorf("the trust record %s was changed by hand: its parts do not match its hash", path)
	}
	return &r, nil
}

// Grant records that the workspace at root may do parts, replacing any
// earlier record, atomically: a reader sees the old record or the new
// one, whole.
func (s Store) Grant(root string, parts Parts, by string, now time.Time) (*Record, error) {
	root = RealPath(root)
	parts = parts.sorted()
	r := &Record{Version: recordVersion, Path: root, Hash: parts.Hash(), Parts: parts, Time: now.UTC().Truncate(time.Second), By: by}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("unable to make the trust records folder: %w", err)
	}
	if err := workspace.WriteFileAt(s.file(root), append(data, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("unable to write the trust record: %w", err)
	}
	return r, nil
}

// Revoke removes the workspace's record; false when it had none.
func (s Store) Revoke(root string) (bool, error) {
	err := os.Remove(s.file(RealPath(root)))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("unable to remove the trust record: %w", err)
	}
	return true, nil
}

// List returns every readable record, by path, and the problems of the
// others.
func (s Store) List() ([]*Record, []error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{err}
	}
	var out []*Record
	var problems []error
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".json" {
			continue
		}
		path := filepath.Join(s.Dir, e.Name())
		data, err := workspace.ReadFileAt(path, maxRecord)
		if err != nil {
			problems = append(problems, fmt.Errorf("the trust record %s is unreadable: %w", path, err))
			continue
		}
		var r Record
		if err := json.Unmarshal(data, &r); err != nil || r.Path == "" || s.file(r.Path) != path {
			problems = append(problems, fmt.Errorf("the trust record %s is not icm's", path))
			continue
		}
		out = append(out, &r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, problems
}

// Carry gives a copy icm made of a trusted workspace (a test's copy) the
// trust d holds, so what runs in the copy is what the person trusted in
// the original; undo removes the copy's record. Nothing is written when
// d is not trusted or needs no trust.
func (s Store) Carry(d Decision, copyRoot string, now time.Time) (undo func(), err error) {
	if !d.Needed() || !d.Allowed() {
		return func() {}, nil
	}
	if _, err := s.Grant(copyRoot, d.Parts, "a copy of "+d.Root, now); err != nil {
		return func() {}, err
	}
	return func() { _, _ = s.Revoke(copyRoot) }, nil
}
