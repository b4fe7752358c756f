// Package scaffold makes workspaces: a new one from icm's templates, a new
// one from another workspace's factory (its contracts, routing, reference
// material and settings, without the material and results of its runs),
// and a new stage in an existing one. What it writes passes `icm check`.
// It never overwrites a file.
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/workspace"
)

//go:embed templates/*.tmpl
var templates embed.FS

// Result says what was written.
type Result struct {
	// Root is the workspace's absolute path.
	Root string
	// Created lists the files written, relative to Root, with forward
	// slashes, in the order they were written.
	Created []string
	// Stage is the stage folder made (NewStage, Init), relative to Root.
	Stage string
}

// writer writes new files under a root, refusing to replace any. It
// writes through a workspace.Root of that folder, so a folder on the way
// that is a link out of it is refused, as every write of icm is.
type writer struct {
	res  *Result
	root *workspace.Root
}

// close releases the writer's Root, once the writing is done.
func (w *writer) close() {
	if w.root != nil {
		_ = w.root.Close()
		w.root = nil
	}
}

func (w *writer) write(rel string, data []byte) error {
	abs := filepath.Join(w.res.Root, filepath.FromSlash(rel))
	if w.root == nil {
		r, err := workspace.OpenRoot(w.res.Root, workspace.RootOptions{})
		if err != nil {
			return err
		}
		w.root = r
	}
	if err := w.root.MkdirAll(path.Dir(rel)); err != nil {
		return fmt.Errorf("unable to create %s: %w", filepath.Dir(abs), err)
	}
	f, err := w.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fault.InvalidRequest(fmt.Sprintf("%s already exists; icm does not overwrite it", abs), "choose a name nothing has there, or move the file away")
	}
	if err != nil {
		return fmt.Errorf("unable to create %s: %w", abs, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("unable to write %s: %w", abs, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("unable to write %s: %w", abs, err)
	}
	w.res.Created = append(w.res.Created, filepath.ToSlash(rel))
	return nil
}

// render fills a template from templates/.
func render(name string, data any) ([]byte, error) {
	t, err := template.ParseFS(templates, "templates/"+name)
	if err != nil {
		return nil, fmt.Errorf("unable to read the %s template: %w", name, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("unable to fill the %s template: %w", name, err)
	}
	return b.Bytes(), nil
}

// prepareRoot makes dir ready to hold a new workspace: absent or empty.
func prepareRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("unable to resolve %s: %w", dir, err)
	}
	entries, err := os.ReadDir(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return "", fmt.Errorf("unable to create %s: %w", abs, err)
		}
	case err != nil:
		return "", fmt.Errorf("unable to use %s for a new workspace: %w", abs, err)
	case len(entries) > 0:
		return "", fault.InvalidRequest(fmt.Sprintf("%s is not empty; give icm init a new or empty folder", abs), "name a new or empty folder")
	}
	return abs, nil
}

// titleOf makes a readable title from a folder name: "course-rust" -> "Course rust".
func titleOf(dir string) string {
	base := strings.NewReplacer("-", " ", "_", " ").Replace(filepath.Base(dir))
	base = strings.TrimSpace(base)
	if base == "" || base == "." || base == string(filepath.Separator) {
		return "This workspace"
	}
	return strings.ToUpper(base[:1]) + base[1:]
}
