package runnable

import (
	"path"
	"regexp"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// model is the scripted model: it answers each chat call by reading the
// tools the call offers, as a careful model would. It reads first (every
// file a read tool offers, once), then writes (every output the write
// tool lists, then whatever its answers say is still to write), and with
// neither tool it answers in plain text. It never invents a file name:
// each one comes from the tool's own list.
type model struct {
	// body is the text of every Markdown file it writes: the headings
	// later stages of the workspace read by section.
	body string
}

// maxTurns bounds one stage's conversation: a model that keeps calling
// tools is cut off with a plain answer, and the engine judges that.
const maxTurns = 12

// maxWrites is how often the model writes the same path before it gives
// up on it.
const maxWrites = 2

// reply answers one chat call.
func (m *model) reply(req *ollamatest.Request) ollamatest.Turn {
	if assistantTurns(req) >= maxTurns {
		return ollamatest.Text("I stop here.")
	}
	if t, ok := readTool(req); ok {
		if calls := m.reads(req, t); len(calls) > 0 {
			return ollamatest.Calls(calls...)
		}
	}
	if t, ok := tool(req, writeout.ToolName); ok {
		return m.write(req, t)
	}
	if req.Format != nil {
		return ollamatest.Text("{}")
	}
	return ollamatest.Text("# Output\n\n" + m.body)
}

// write answers a call that offers the write tool.
func (m *model) write(req *ollamatest.Request, t api.Tool) ollamatest.Turn {
	results := toolResults(req, writeout.ToolName)
	var todo []wanted
	if len(results) == 0 {
		var named bool
		if todo, named = listAfter(t.Function.Description, outputsLead); !named {
			// The contract names no file: the tool gives an example name.
			if m := exampleName.FindStringSubmatch(t.Function.Description); m != nil {
				todo = []wanted{{path: m[1]}}
			}
		}
	} else {
		// The last accepted write says what is left; a refused one
		// changes nothing.
		last := ""
		for _, r := range results {
			if strings.HasPrefix(r, "Written ") {
				last = r
			}
		}
		switch {
		case last == "":
			return ollamatest.Text("I could not write the files: " + firstLine(results[len(results)-1]))
		case strings.Contains(last, allWritten):
			return ollamatest.Text("Wrote every output.")
		}
		todo, _ = listAfter(last, stillToWrite)
	}
	tries := callCounts(req, writeout.ToolName)
	var calls []ollamatest.ToolCall
	for _, w := range todo {
		p := fileFor(w)
		if tries[p] >= maxWrites {
			continue
		}
		calls = append(calls, ollamatest.Call(writeout.ToolName, map[string]any{"path": p, "content": contentFor(p, m.body)}))
	}
	if len(calls) == 0 {
		return ollamatest.Text("I wrote what I could.")
	}
	return ollamatest.Calls(calls...)
}

// readTool finds a tool that reads a file by its path: named for reading,
// with a path argument.
func readTool(req *ollamatest.Request) (api.Tool, bool) {
	for _, t := range req.Tools {
		name := strings.ToLower(t.Function.Name)
		if name == writeout.ToolName || !strings.Contains(name, "read") {
			continue
		}
		if _, ok := pathArg(t); ok {
			return t, true
		}
	}
	return api.Tool{}, false
}

// pathArg names the argument of a tool that takes a file's path.
func pathArg(t api.Tool) (string, bool) {
	if t.Function.Parameters.Properties == nil {
		return "", false
	}
	for _, name := range []string{"path", "file", "file_path", "filename"} {
		if _, ok := t.Function.Parameters.Properties.Get(name); ok {
			return name, true
		}
	}
	return "", false
}

// exampleName is the name a write tool's description gives as an example
// of a file in output/ ("(output/report.md)").
var exampleName = regexp.MustCompile(`\((output/[\w.-]+)\)`)

// pathish is a word that names a file: a relative path with an extension.
var pathish = regexp.MustCompile(`^(?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,8}$`)

// pathsIn lists the words of text that name files, in order.
func pathsIn(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(" \t\n,;()[]`'\"", r) }) {
		if w = strings.TrimRight(w, ".:"); pathish.MatchString(w) {
			out = append(out, w)
		}
	}
	return out
}

// reads are the calls of the read tool t for every file it offers (its
// path argument's enum, or the paths its description lists) that the
// model has not read yet.
func (m *model) reads(req *ollamatest.Request, t api.Tool) []ollamatest.ToolCall {
	arg, _ := pathArg(t)
	var offered []string
	if p, ok := t.Function.Parameters.Properties.Get(arg); ok {
		for _, v := range p.Enum {
			if s, ok := v.(string); ok {
				offered = append(offered, s)
			}
		}
	}
	if len(offered) == 0 {
		offered = pathsIn(t.Function.Description)
	}
	done := callCounts(req, t.Function.Name)
	var calls []ollamatest.ToolCall
	for _, p := range offered {
		p = path.Clean(p)
		if done[p] > 0 {
			continue
		}
		done[p] = 1
		calls = append(calls, ollamatest.Call(t.Function.Name, map[string]any{arg: p}))
	}
	return calls
}

// tool finds the tool of that name among those the call offers.
func tool(req *ollamatest.Request, name string) (api.Tool, bool) {
	for _, t := range req.Tools {
		if t.Function.Name == name {
			return t, true
		}
	}
	return api.Tool{}, false
}

// toolResults are the contents of the results of the named tool so far.
func toolResults(req *ollamatest.Request, name string) []string {
	var out []string
	for _, m := range req.ToolResults() {
		if m.ToolName == name {
			out = append(out, m.Content)
		}
	}
	return out
}

// callCounts counts the model's calls of the named tool so far by the
// path (any string argument) they named.
func callCounts(req *ollamatest.Request, name string) map[string]int {
	n := map[string]int{}
	for _, msg := range req.Messages {
		for _, c := range msg.ToolCalls {
			if c.Function.Name != name {
				continue
			}
			for _, k := range []string{"path", "file", "file_path", "filename"} {
				if v, ok := c.Function.Arguments.Get(k); ok {
					if s, ok := v.(string); ok {
						n[path.Clean(s)]++
					}
				}
			}
		}
	}
	return n
}

func assistantTurns(req *ollamatest.Request) int {
	n := 0
	for _, msg := range req.Messages {
		if msg.Role == "assistant" {
			n++
		}
	}
	return n
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
