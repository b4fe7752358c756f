package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// WrittenDir is where a stage keeps what the model last wrote, inside its
// state folder: the output as the model wrote it (so a person's edit can be
// compared with it) and, for a For each stage, each item's answer (so one
// item can be re-run without touching the others).
const WrittenDir = "written"

// itemsFile holds a For each stage's item answers, in WrittenDir.
const itemsFile = "items.json"

// Written is what the model last wrote for a stage.
type Written struct {
	// RunID is the run that wrote it.
	RunID string `json:"run_id"`
	// Output is the workspace-relative output file.
	Output string `json:"output"`
	// Files are every output the model wrote, workspace-relative, when it
	// named them (the write tool); Output is the first of them.
	Files []string `json:"files,omitempty"`
	// Items are a For each stage's answers, in item order; empty otherwise.
	Items []WrittenItem `json:"items,omitempty"`
}

// WrittenItem is one For each item's answer as the model wrote it.
type WrittenItem struct {
	Index int    `json:"index"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// ModelVersionPath is the copy of output (workspace-relative) as the
// model wrote it; it exists once a model stage has run.
func ModelVersionPath(ws *workspace.Workspace, st *workspace.Stage, output string) string {
	return filepath.Join(st.Dir, state.StateDir, WrittenDir, filepath.FromSlash(inOutput(st, output)))
}

// inOutput is an output's path inside the stage's output/ folder
// ("notes.md", "site/index.html"): its file name for a file directly in
// it, as kept copies have always been named.
func inOutput(st *workspace.Stage, output string) string {
	if rest, ok := strings.CutPrefix(output, st.Rel+"/"+workspace.OutputDir+"/"); ok {
		return rest
	}
	return path.Base(output)
}

// joinItems is how a For each stage's answers make its output.
func joinItems(items []WrittenItem) string {
	var b []byte
	for i, it := range items {
		if i > 0 {
			b = append(b, "\n\n"...)
		}
		b = append(b, it.Text...)
	}
	return string(b)
}

// keepWritten saves the model's version of a stage's output next to its
// state, with the item answers of a For each stage.
func keepWritten(ws *workspace.Workspace, st *workspace.Stage, w *Written, data []byte) error {
	if err := ws.Disk.WriteFile(ModelVersionPath(ws, st, w.Output), data, 0o644); err != nil {
		return fmt.Errorf("unable to keep the model's version of %s: %w", w.Output, err)
	}
	raw, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return err
	}
	return ws.Disk.WriteFile(filepath.Join(st.Dir, state.StateDir, WrittenDir, itemsFile), append(raw, '\n'), 0o644)
}

// ReadWritten reads what the model last wrote for a stage; nil when
// nothing is kept (a script stage, or a run before icm kept it).
func ReadWritten(ws *workspace.Workspace, st *workspace.Stage) (*Written, error) {
	raw, err := ws.Disk.ReadFile(filepath.Join(st.Dir, state.StateDir, WrittenDir, itemsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var w Written
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fault.Failed(fmt.Sprintf("unable to read the model's version of stage %s: %v (run the stage again)", st.Name, err), "run the stage again", err).In(st.Name)
	}
	return &w, nil
}
