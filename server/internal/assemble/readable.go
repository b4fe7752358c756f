package assemble

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// The model reads what the contract mentions. icm loads what it resolves
// with certainty (the Inputs); every other file or folder the contract
// names anywhere (a sentence, a list, a link, a code span) is listed in
// the prompt with its size, and the model reads it through icm's read
// tool when the work needs it. A model that calls no tools gets what icm
// loaded, and no list (Options.NoReadTool).

// Readable is a file or folder the stage's contract names, which the
// model may read.
type Readable struct {
	// Path is workspace-relative ("/..." for a shared file of the
	// repository above the workspace); Abs is where it is on disk.
	Path string `json:"path"`
	Abs  string `json:"-"`
	// Size is a file's size in bytes.
	Size int64 `json:"size,omitempty"`
	// Dir is set for a folder; Files counts the files it holds (at most
	// workspace.MaxFolderFiles).
	Dir   bool `json:"dir,omitempty"`
	Files int  `json:"files,omitempty"`
	// Loaded says how much of it the prompt holds already: LoadedWhole,
	// LoadedPart, or "" for nothing.
	Loaded string `json:"loaded,omitempty"`
}

// How much of a readable file the prompt holds.
const (
	LoadedWhole = "whole"
	LoadedPart  = "part"
)

// readLabel labels the part that lists the files to read.
const readLabel = "Files you may read"

// MaxReadable bounds how many files and folders a stage's list names.
const MaxReadable = 100

// ReadToolRead and ReadToolList are the names of icm's read tools, as the
// prompt names them.
const (
	ReadToolRead = "read_file"
	ReadToolList = "list_files"
)

// readable finds the files and folders the contract names that exist,
// and how much of each the loaded parts hold; it sets Context.Readable
// and, when the model may call the read tool and the contract names a
// file or folder the prompt holds nothing of, Context.ReadTool.
func (a *assembler) readable(c *contract.Contract) {
	seen := map[string]bool{}
	var out []Readable
	for _, m := range c.Mentions() {
		r, ok := a.mentioned(m)
		if !ok || seen[r.Abs] || len(out) >= MaxReadable {
			continue
		}
		seen[r.Abs] = true
		out = append(out, r)
	}
	for _, p := range a.ctx.Parts {
		if p.Path == "" || p.Text == "" || (p.Layer != contract.LayerReference && p.Layer != contract.LayerWorking) {
			continue
		}
		abs := a.ws.InputAbs(p.Path)
		if seen[abs] || len(out) >= MaxReadable {
			continue
		}
		info, err := a.ws.StatInput(abs)
		if err != nil || info.IsDir() {
			continue
		}
		seen[abs] = true
		out = append(out, Readable{Path: p.Path, Abs: abs, Size: info.Size()})
	}
	whole, part := a.loadedFiles()
	for i := range out {
		r := &out[i]
		switch {
		case r.Dir && a.folderLoaded(r.Abs, whole, part):
			r.Loaded = LoadedWhole
		case whole[r.Path]:
			r.Loaded = LoadedWhole
		case part[r.Path]:
			r.Loaded = LoadedPart
		}
		if r.Loaded == "" && !a.opts.NoReadTool {
			a.ctx.ReadTool = true
		}
	}
	a.ctx.Readable = out
}

// mentioned resolves one mention to what it names on disk, if anything
// there may be read: a file, or a folder with files below the workspace
// root (the root itself, or a folder above it, is no folder to read), not
// the stage's own folder or output/ (what it writes) nor a hidden one. A bare name
// following a path is looked for beside it first.
func (a *assembler) mentioned(m contract.Mention) (Readable, bool) {
	var f workspace.Found
	found := false
	if m.Beside != "" {
		if g, _, err := a.ws.FindInput(a.st.Dir, path.Join(m.Beside, m.Path)); err == nil && g.Exists {
			f, found = g, true
		}
	}
	if !found {
		g, _, err := a.ws.FindInput(a.st.Dir, m.Path)
		if err != nil || !g.Exists || g.Info == nil {
			return Readable{}, false
		}
		f = g
	}
	abs := f.Abs
	if _, ok := a.layered[abs]; ok || abs == a.st.Contract {
		return Readable{}, false // loaded as layer 0, 1 or 2 already
	}
	if holds(abs, a.ws.Root) || (a.ws.Repository != "" && holds(abs, a.ws.Repository)) {
		return Readable{}, false
	}
	rel := a.ws.InputRel(abs)
	if OwnOutput(a.st, rel) || abs == a.st.Dir {
		// What the stage writes is not what it reads; its own folder
		// holds its contract and inputs, which are loaded.
		return Readable{}, false
	}
	for _, seg := range strings.Split(strings.TrimPrefix(rel, "/"), "/") {
		if strings.HasPrefix(seg, ".") {
			return Readable{}, false
		}
	}
	r := Readable{Path: rel, Abs: abs}
	switch {
	case f.Info.IsDir():
		files, _, err := a.ws.FolderFiles(abs)
		if err != nil || len(files) == 0 {
			return Readable{}, false
		}
		r.Dir, r.Files = true, len(files)
	case f.Info.Mode().IsRegular():
		r.Size = f.Info.Size()
	default:
		return Readable{}, false
	}
	return r, true
}

// holds reports whether the folder abs is dir or one of its parents.
func holds(abs, dir string) bool {
	rel, err := filepath.Rel(abs, dir)
	return err == nil && (rel == "." || !strings.HasPrefix(rel, ".."))
}

// loadedFiles are the files the parts hold whole, and those they hold
// only part of (a section, the path alone) or looked at and left out.
func (a *assembler) loadedFiles() (whole, part map[string]bool) {
	whole, part = map[string]bool{}, map[string]bool{}
	for _, p := range a.ctx.Parts {
		if p.Path == "" || p.Missing || (p.Layer != contract.LayerReference && p.Layer != contract.LayerWorking) {
			continue
		}
		if p.Text == "" || p.Skipped != "" || strings.Contains(p.Label, "#") || p.Size > 0 {
			// A section, the path alone, or a file icm looked at and
			// did not load (empty, binary, refused): not offered again.
			part[p.Path] = true
			continue
		}
		whole[p.Path] = true
	}
	return whole, part
}

// folderLoaded reports whether every file of the folder abs is in the
// parts (whole, or as its input chose): listing it tells the model
// nothing new.
func (a *assembler) folderLoaded(abs string, whole, part map[string]bool) bool {
	files, more, err := a.ws.FolderFiles(abs)
	if err != nil || more || len(files) == 0 {
		return false
	}
	for _, f := range files {
		if rel := a.ws.InputRel(f); !whole[rel] && !part[rel] {
			return false
		}
	}
	return true
}

// readBlock is the list of what the model may read that the prompt holds
// nothing of, with sizes, or "" when the read tool is not offered.
func (a *assembler) readBlock() string {
	if !a.ctx.ReadTool {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Files you may read\n\nThe contract names these files besides what is loaded here. Read one with the " +
		ReadToolRead + " tool when the work needs it.\n")
	for _, r := range a.ctx.Readable {
		switch {
		case r.Loaded != "":
			// In the prompt already, whole or in the part its input
			// names: the author chose that part.
		case r.Dir:
			fmt.Fprintf(&b, "\n- `%s/` (a folder of %s: list it with %s)", r.Path, plural(r.Files, "file"), ReadToolList)
		default:
			fmt.Fprintf(&b, "\n- `%s` (%s)", r.Path, byteSize(int(r.Size)))
		}
	}
	return b.String()
}

func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}
