// Package readtool is icm's read tool: what a stage's model may read
// besides the prompt, and the reading itself. A contract is instructions
// to an agent that reads; icm loads what it resolves with certainty and
// lists the other files the contract names (assemble.Readable). The model
// reads one of those with read_file, or lists a folder the contract names
// with list_files; anything else is refused with a message, unless the
// person lets stages read their whole workspace (their own settings,
// never the workspace's). Every read goes through the workspace's
// contained file layer and its caps: nothing outside the workspace but a
// shared file of its repository that the contract names, nothing hidden,
// nothing under .git.
package readtool

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/assemble"
)

// The tools' names, as the model calls them.
const (
	ReadName = assemble.ReadToolRead
	ListName = assemble.ReadToolList
)

// Tool is one read tool's definition, as the model sees it (the fields
// of a model client's tool).
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// maxNamed bounds how many paths a tool's description names.
const maxNamed = 40

// Definitions are the read tools a call on cx offers, in order: read_file
// when the prompt lists files to read, list_files when it lists a
// folder; none when cx offers no read tool. Each description names what
// it may read, so the definition is the stage's own, the same on every
// call of the stage.
func Definitions(cx *assemble.Context) []Tool {
	if cx == nil || !cx.ReadTool {
		return nil
	}
	var files, folders []string
	for _, r := range cx.Readable {
		switch {
		case r.Loaded != "":
		case r.Dir:
			folders = append(folders, "`"+r.Path+"/`")
		default:
			files = append(files, "`"+r.Path+"`")
		}
	}
	read := "Read a file of this stage that its contract names (one listed under \"Files you may read\", or a file inside a folder listed there), by its path as listed. Files already in the prompt need no reading."
	if len(files) > 0 {
		read += " The files: " + named(files) + "."
	}
	tools := []Tool{{Name: ReadName, Description: read, Parameters: readParameters}}
	if len(folders) > 0 {
		tools = append(tools, Tool{Name: ListName,
			Description: "List the files in a folder this stage's contract names, with their sizes, to read them with " + ReadName + ". The folders: " + named(folders) + ".",
			Parameters:  listParameters})
	}
	return tools
}

// named joins paths for a description, at most maxNamed of them.
func named(paths []string) string {
	if len(paths) > maxNamed {
		return strings.Join(paths[:maxNamed], ", ") + fmt.Sprintf(" and %d more", len(paths)-maxNamed)
	}
	return strings.Join(paths, ", ")
}

// readParameters and listParameters are the tools' argument schemas.
var (
	readParameters = json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"The file's path as the prompt lists it, e.g. _config/voice.md."}},` +
		`"required":["path"]}`)
	listParameters = json.RawMessage(`{"type":"object","properties":{` +
		`"folder":{"type":"string","description":"The folder's path as the prompt lists it, e.g. references/."}},` +
		`"required":["folder"]}`)
)
