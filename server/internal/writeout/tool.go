package writeout

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ToolDescription is the write tool's description, naming the outputs it
// accepts; ToolParameters its JSON schema.
func ToolDescription(targets []Target) string {
	if len(targets) == 0 {
		return "Write one output file of this stage (call it once per file; writing a path again replaces it). " + openRule()
	}
	d := make([]string, len(targets))
	for i, t := range targets {
		d[i] = t.Describe()
	}
	return "Write one output file of this stage (call it once per file; writing a path again replaces it). The outputs: " +
		strings.Join(d, "; ") + "."
}

// openRule says what the write tool accepts from a stage whose contract
// names no output file.
func openRule() string {
	return fmt.Sprintf("The contract names no output file: write each file the task asks for inside output/, with a short lowercase name (output/report.md); "+
		"at most %d files, no hidden names, and no file that is already there.", MaxOpenFiles)
}

// ToolParameters is the JSON schema of the write tool's arguments.
var ToolParameters = json.RawMessage(`{"type":"object","properties":{` +
	`"path":{"type":"string","description":"The file to write, inside output/, e.g. output/notes.md. It must fit one of the stage's outputs."},` +
	`"content":{"type":"string","description":"The whole content of the file."}},` +
	`"required":["path","content"]}`)

// Modes of writing: through the tool, or in one plain answer.
const (
	ModeTool  = "tool"
	ModePlain = "plain"
	// ModeJSON is the plain answer as JSON that a format schema
	// constrains (Ollama's format).
	ModeJSON = "json"
)

// Schema is the JSON schema of a ModeJSON answer: the files, each a path
// and its content, the path held to a pattern that only the declared
// outputs fit (so a constrained sampler writes no other name), each
// placeholder a lowercase hyphenated name.
func Schema(targets []Target) json.RawMessage {
	alts := make([]string, len(targets))
	for i, t := range targets {
		alts[i] = t.namePattern()
	}
	if len(targets) == 0 {
		alts = []string{openName}
	}
	file := map[string]any{"type": "object", "required": []string{"path", "content"},
		"properties": map[string]any{"path": map[string]any{"type": "string", "pattern": "^(" + strings.Join(alts, "|") + ")$"}, "content": map[string]any{"type": "string"}}}
	raw, _ := json.Marshal(map[string]any{"type": "object", "required": []string{"files"},
		"properties": map[string]any{"files": map[string]any{"type": "array", "minItems": 1, "items": file}}})
	return raw
}

// Instructions tell the model how to write the files in mode, after the
// Outputs section's own words. They name the files icm accepts.
func Instructions(mode string, targets []Target) string {
	var b strings.Builder
	if len(targets) == 0 {
		b.WriteString("This stage writes files, and you name them. " + openRule() + "\n")
	} else {
		b.WriteString("This stage writes files, and you name them. The files icm accepts:\n")
		for _, t := range targets {
			fmt.Fprintf(&b, "- %s\n", t.Describe())
		}
	}
	b.WriteString("\nReplace each placeholder with a short lowercase name made of words joined by hyphens. ")
	switch mode {
	case ModeJSON:
		b.WriteString(`Answer with one JSON object: {"files": [{"path": "output/NAME", "content": "the whole file"}]}, one entry per file.` + "\n")
	case ModePlain:
		b.WriteString("Answer with every file, each as a line `path: output/NAME` followed by the whole file in a fenced block opened and closed by four backticks (````), and nothing else between the files.\n")
	default:
		b.WriteString("Write each file with the " + ToolName + " tool (path and the whole content), one call per file. When every file is written, answer with one line saying what you wrote.\n")
	}
	return b.String()
}

// File is one file of a plain answer.
type File struct {
	Path    string
	Content string
}

// ParseJSON reads a ModeJSON answer.
func ParseJSON(text string) ([]File, error) {
	var v struct {
		Files []struct {
			Path    *string `json:"path"`
			Content *string `json:"content"`
		} `json:"files"`
	}
	dec := json.NewDecoder(strings.NewReader(strings.TrimSpace(text)))
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the answer is not the JSON of files asked for: %v", err)
	}
	var out []File
	for i, f := range v.Files {
		if f.Path == nil || f.Content == nil {
			return nil, fmt.Errorf("file %d of the answer lacks its path or content", i+1)
		}
		out = append(out, File{Path: *f.Path, Content: *f.Content})
	}
	return out, nil
}

// ParsePlain reads a ModePlain answer: each file a `path: P` line, then
// (after blank lines at most) a fenced block of three or more backticks
// or tildes, closed by a fence of the same character at least as long on
// a line of its own. Text between files is ignored; a path line without
// its block, a block left open, or an empty path is an error naming the
// line. An answer with no path line holds no files (nil, nil).
func ParsePlain(text string) ([]File, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []File
	for i := 0; i < len(lines); i++ {
		p, ok := pathLine(lines[i])
		if !ok {
			continue
		}
		if p == "" {
			return nil, fmt.Errorf("line %d: the path line names no file", i+1)
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j >= len(lines) {
			return nil, fmt.Errorf("line %d: %s has no fenced block after it", i+1, p)
		}
		fence, ok := openFence(lines[j])
		if !ok {
			return nil, fmt.Errorf("line %d: %s is not followed by a fenced block (``` or ````)", j+1, p)
		}
		var body []string
		k := j + 1
		closed := false
		for ; k < len(lines); k++ {
			if closes(lines[k], fence) {
				closed = true
				break
			}
			body = append(body, lines[k])
		}
		if !closed {
			return nil, fmt.Errorf("line %d: the block of %s is never closed with %s", j+1, p, fence)
		}
		content := strings.Join(body, "\n")
		if content != "" {
			content += "\n"
		}
		out = append(out, File{Path: p, Content: content})
		i = k
	}
	return out, nil
}

// pathLine reads "path: P" (any case, P maybe in backticks or bold).
func pathLine(l string) (string, bool) {
	t := strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "*"))
	if len(t) < 5 || !strings.EqualFold(t[:5], "path:") {
		return "", false
	}
	return strings.Trim(strings.TrimSpace(strings.Trim(strings.TrimSpace(t[5:]), "*")), "`"), true
}

// openFence returns the fence a line opens: three or more ` or ~.
func openFence(l string) (string, bool) {
	t := strings.TrimSpace(l)
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return "", false
	}
	n := len(t) - len(strings.TrimLeft(t, t[:1]))
	if n < 3 {
		return "", false
	}
	return t[:n], true
}

func closes(l, fence string) bool {
	t := strings.TrimSpace(l)
	return len(t) >= len(fence) && strings.Trim(t, fence[:1]) == ""
}
