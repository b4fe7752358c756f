package scaffold

import (
	"fmt"
	"path"
)

// DefaultModel is the model a new workspace's config.toml names.
const DefaultModel = "qwen3.5:9b"

// InitOptions shape a new workspace.
type InitOptions struct {
	// Title names the work in CLAUDE.md; empty takes it from the folder name.
	Title string
	// Stage is the first stage's name, numbered or not ("draft" becomes
	// "01-draft"); empty means "01-draft".
	Stage string
	// Model is [model] name in config.toml; empty means DefaultModel.
	Model string
}

// stageData fills the stage and routing templates.
type stageData struct {
	Title, Stage, StagePurpose, Input, Reference, Output, Process, Model, From string
}

// Init creates a workspace in dir, which must be absent or empty: the
// identity (CLAUDE.md), the routing (CONTEXT.md), config.toml, a reference
// file in _config/, one stage with a commented contract and an input to
// work on, and the proposed/ staging area.
func Init(dir string, o InitOptions) (*Result, error) {
	stage := o.Stage
	if stage == "" {
		stage = "draft"
	}
	name, err := stageName(stage, 1)
	if err != nil {
		return nil, err
	}
	root, err := prepareRoot(dir)
	if err != nil {
		return nil, err
	}
	d := stageData{
		Title:        o.Title,
		Stage:        name,
		StagePurpose: "Turn the input into a first draft that follows the style guide.",
		Input:        "input.md",
		Reference:    "../../_config/style.md",
		Output:       "draft.md",
		Process:      "Read the input and the style guide. Write a first draft of what the input\ndescribes, following the style guide.\n\nWrite only the draft, as Markdown.",
		Model:        o.Model,
	}
	if d.Title == "" {
		d.Title = titleOf(root)
	}
	if d.Model == "" {
		d.Model = DefaultModel
	}
	res := &Result{Root: root, Stage: path.Join("pipeline", name)}
	w := &writer{res: res}
	defer w.close()
	files := []struct{ rel, tmpl string }{
		{"CLAUDE.md", "CLAUDE.md.tmpl"},
		{"CONTEXT.md", "CONTEXT.md.tmpl"},
		{"config.toml", "config.toml.tmpl"},
		{"_config/style.md", "style.md.tmpl"},
		{path.Join(res.Stage, "CONTEXT.md"), "stage.md.tmpl"},
		{path.Join(res.Stage, "input.md"), "input.md.tmpl"},
		{"pipeline/proposed/README.md", "proposed.md.tmpl"},
	}
	for _, f := range files {
		data, err := render(f.tmpl, d)
		if err != nil {
			return nil, err
		}
		if err := w.write(f.rel, data); err != nil {
			return nil, fmt.Errorf("unable to create the workspace: %w", err)
		}
	}
	return res, nil
}
