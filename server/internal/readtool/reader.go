package readtool

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/textnorm"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Reader answers one stage's read calls.
type Reader struct {
	ws *workspace.Workspace
	st *workspace.Stage
	// files are the files the contract names, folders the folders
	// (absolute); named lists them for a refusal, as the prompt does.
	files   map[string]bool
	folders []string
	named   []string
	// whole lets the model read any file of the workspace: the person
	// said so in their own settings.
	whole bool
}

// NewReader is the reader of stage st over what its context lists
// (assemble.Context.Readable); whole lets it read any file of the
// workspace.
func NewReader(ws *workspace.Workspace, st *workspace.Stage, readable []assemble.Readable, whole bool) *Reader {
	r := &Reader{ws: ws, st: st, files: map[string]bool{}, whole: whole}
	for _, x := range readable {
		if x.Dir {
			r.folders = append(r.folders, x.Abs)
			r.named = append(r.named, x.Path+"/")
			continue
		}
		r.files[x.Abs] = true
		r.named = append(r.named, x.Path)
	}
	return r
}

// Refusal is a read icm declines: the model gets its text, and the run
// goes on.
type Refusal struct{ msg string }

func (e *Refusal) Error() string { return e.msg }

func refuse(format string, args ...any) error { return &Refusal{msg: fmt.Sprintf(format, args...)} }

// File is a file read: its name as the prompt lists it, its bytes as on
// disk, and the text the model gets.
type File struct {
	Rel  string
	Data []byte
	Text string
}

// Read reads the file p names (as listed, relative to the stage folder
// or to the workspace root, or "/…" for a shared file). A file the
// contract does not name, a folder, a hidden file or one the workspace's
// file layer refuses gives a *Refusal saying why.
func (r *Reader) Read(p string) (*File, error) {
	abs, err := r.locate(p)
	if err != nil {
		return nil, err
	}
	rel := r.ws.InputRel(abs)
	info, err := r.ws.StatInput(abs)
	if err != nil {
		return nil, refuse("Not read: %s: %v.", rel, err)
	}
	if info.IsDir() {
		return nil, refuse("Not read: %s is a folder; list it with %s.", rel, ListName)
	}
	if !r.allowed(abs) {
		return nil, refuse("Not read: %s is not a file this stage's contract names, so it is not yours to read. %s", rel, r.offer())
	}
	data, err := r.ws.ReadInput(abs)
	if err != nil {
		return nil, refuse("Not read: %s: %v.", rel, err)
	}
	f := &File{Rel: rel, Data: data}
	switch {
	case document.IsBinary(data):
		f.Text = fmt.Sprintf("(%s is a binary file of %s; its content is not shown)", rel, workspace.FormatSize(int64(len(data))))
	case len(strings.TrimSpace(string(data))) == 0:
		f.Text = "(" + rel + " is empty)"
	default:
		f.Text = string(textnorm.Text(data))
	}
	return f, nil
}

// List lists the files in the folder p names (recursively, hidden files
// left out, at most workspace.MaxFolderFiles), each with its size: a
// folder the contract names, or one inside it.
func (r *Reader) List(p string) (string, error) {
	abs, err := r.locate(p)
	if err != nil {
		return "", err
	}
	rel := r.ws.InputRel(abs)
	info, err := r.ws.StatInput(abs)
	if err != nil {
		return "", refuse("Not listed: %s: %v.", rel, err)
	}
	if !info.IsDir() {
		return "", refuse("Not listed: %s is a file; read it with %s.", rel, ReadName)
	}
	if !r.allowed(abs) {
		return "", refuse("Not listed: %s is not a folder this stage's contract names. %s", rel, r.offer())
	}
	files, more, err := r.ws.FolderFiles(abs)
	if err != nil {
		return "", refuse("Not listed: %s: %v.", rel, err)
	}
	if len(files) == 0 {
		return rel + "/ holds no files.", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The files in %s/:\n", rel)
	for _, f := range files {
		size := "?"
		if fi, err := r.ws.StatInput(f); err == nil {
			size = workspace.FormatSize(fi.Size())
		}
		fmt.Fprintf(&b, "- %s (%s)\n", r.ws.InputRel(f), size)
	}
	if more {
		fmt.Fprintf(&b, "(only the first %d are listed)\n", workspace.MaxFolderFiles)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// locate finds what p names: a path as the prompt lists it, else as the
// contract would write it (the stage folder, the workspace root, the
// stages folder, "/…" in the repository). Hidden names are refused.
func (r *Reader) locate(p string) (string, error) {
	p = strings.TrimSpace(strings.Trim(strings.TrimSpace(p), "`\"'"))
	if p == "" {
		return "", refuse("Not read: the path is empty; give one the prompt lists. %s", r.offer())
	}
	clean := strings.TrimSuffix(path.Clean(filepath.ToSlash(p)), "/")
	for _, seg := range strings.Split(strings.TrimPrefix(clean, "/"), "/") {
		if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." {
			return "", refuse("Not read: %s is hidden, and hidden files are never read.", p)
		}
	}
	listed := r.ws.InputAbs(clean)
	if r.files[listed] || r.inFolder(listed) {
		return listed, nil
	}
	f, _, err := r.ws.FindInput(r.st.Dir, clean)
	if err != nil {
		return "", refuse("Not read: %s: %v.", p, err)
	}
	if !f.Exists {
		return "", refuse("Not read: %s does not exist. %s", p, r.offer())
	}
	return f.Abs, nil
}

// allowed reports whether abs may be read: a file the contract names, a
// file or folder in a folder it names, or with whole any file of the
// workspace itself.
func (r *Reader) allowed(abs string) bool {
	if r.files[abs] || r.inFolder(abs) {
		return true
	}
	if !r.whole || r.ws.Shared(abs) {
		return false
	}
	rel, ok := r.ws.Disk.Rel(abs)
	return ok && rel != "." && rel != ""
}

// inFolder reports whether abs is a folder the contract names or lies
// in one.
func (r *Reader) inFolder(abs string) bool {
	for _, dir := range r.folders {
		if abs == dir || strings.HasPrefix(abs, dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// offer says what the model may read instead.
func (r *Reader) offer() string {
	if r.whole {
		return "Any file of the workspace may be read, by its path from the workspace root."
	}
	if len(r.named) == 0 {
		return "This stage's contract names no file to read."
	}
	names := append([]string(nil), r.named...)
	sort.Strings(names)
	if len(names) > maxNamed {
		names = append(names[:maxNamed], fmt.Sprintf("and %d more", len(names)-maxNamed))
	}
	return "The files you may read: " + strings.Join(names, ", ") + "."
}
