package workflow

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/writeout"
)

// writerTools offers the write tool beside the stage's own tools: the
// model names each file it writes, and only paths that fit a declared
// output are kept (in memory: nothing reaches the disk before commit).
type writerTools struct {
	inner agent.Tools
	set   *writeout.Set
	tool  llm.Tool
}

func (w *writerTools) Tools() []llm.Tool {
	var out []llm.Tool
	if w.inner != nil {
		out = append(out, w.inner.Tools()...)
	}
	return append(out, w.tool)
}

func (w *writerTools) Call(ctx context.Context, name string, args map[string]any) (agent.ToolResult, error) {
	if name != writeout.ToolName {
		if w.inner == nil {
			return agent.ToolResult{Text: fmt.Sprintf("unknown tool %q: the only tool here is %s", name, writeout.ToolName), IsError: true}, nil
		}
		return w.inner.Call(ctx, name, args)
	}
	p, _ := args["path"].(string)
	content, ok := args["content"].(string)
	if !ok {
		return agent.ToolResult{Text: "Not written: content must be the file's text, as a string.", IsError: true, Server: "icm", Tool: name}, nil
	}
	rel, err := w.set.Accept(p, content)
	if err != nil {
		return agent.ToolResult{Text: "Not written: " + err.Error(), IsError: true, Server: "icm", Tool: name}, nil
	}
	return agent.ToolResult{Text: w.set.Status(rel, len(content)), Server: "icm", Tool: name}, nil
}

// writeTool is the write tool's definition for the model.
func writeTool(ts []writeout.Target) llm.Tool {
	return llm.Tool{Name: writeout.ToolName, Description: writeout.ToolDescription(ts), Parameters: writeout.ToolParameters}
}

// writeMode chooses how the model names its files: through the tool,
// unless the stage offers no tools of its own and the model cannot call
// any (its server lists its capabilities without "tools"); then in one
// plain answer, constrained by a JSON schema where the server is Ollama.
func (r *run) writeMode(sess Toolset, cfg agent.Config) string {
	if sess != nil || len(cfg.Format) > 0 || r.tools {
		return writeout.ModeTool
	}
	if p := r.e.ws.Config.Model.Provider; p == "" || p == llm.ProviderOllama {
		return writeout.ModeJSON
	}
	return writeout.ModePlain
}

// files runs a stage whose model names the files it writes (placeholders,
// folders or several outputs) and returns them by workspace-relative path.
func (r *run) files(ctx context.Context, rep *check.Report, sess Toolset, cfg agent.Config) (map[string][]byte, error) {
	mode := r.writeMode(sess, cfg)
	set := r.newSet()
	kept := r.keepPartial(set)
	actx, err := assemble.Stage(r.e.ws, r.st, r.c, assemble.Options{ProducedBy: rep.ProducedBy, Order: rep.Order, WriteMode: mode, NoReadTool: mode != writeout.ModeTool})
	if err != nil {
		return nil, err
	}
	var tools Toolset
	switch mode {
	case writeout.ModeTool:
		tool := writeTool(writeout.Targets(r.c))
		if len(kept) > 0 {
			tool.Description += fmt.Sprintf(" Files kept from the last run, which wrote only part of the outputs: %s; write the rest: %s.",
				strings.Join(kept, ", "), describeTargets(set.Missing()))
		}
		tools = &closer{&writerTools{inner: toolsOf(sess), set: set, tool: tool}}
	case writeout.ModeJSON:
		cfg.Format = writeout.Schema(writeout.Targets(r.c))
	}
	r.set = set
	res, _, err := r.loop(ctx, tools, cfg, actx, itemAt{})
	if err != nil {
		return nil, err
	}
	if set.Len() == 0 {
		// No tool call wrote a file: the answer may hold them in the
		// plain format (a model that does not call tools well), or be
		// the JSON asked for.
		if err := acceptAnswer(set, mode, res); err != nil {
			return nil, noOutput(r.st.Name, fmt.Sprintf("stage %s: %v", r.st.Name, err)).Because(err)
		}
	}
	if set.Len() == 0 {
		where := describeTargets(writeout.Targets(r.c))
		if set.Open() {
			where = "any new file in output/"
		}
		return nil, noOutput(r.st.Name, fmt.Sprintf("stage %s: the model wrote no output file: it must call %s, or answer with each file under a `path:` line; the outputs are %s",
			r.st.Name, writeout.ToolName, where))
	}
	// A partial answer is kept: what the model wrote is saved, and the
	// record names the declared outputs still missing.
	return r.take(set)
}

// newSet is the set of files a run of the stage may write: the declared
// outputs; new files of output/ that are not there already, when the
// contract names none; files it names outside output/ that stay in the
// workspace.
func (r *run) newSet() *writeout.Set {
	return writeout.NewSet(r.st.Rel, r.c, int(r.e.ws.Disk.MaxRead())).Protect(r.taken).Contain(func(rel string) error {
		_, err := proposalTarget(r.e.ws, r.st, rel)
		return err
	})
}

// acceptAnswer takes the files of a plain or JSON answer into set; an
// answer that holds none leaves it empty.
func acceptAnswer(set *writeout.Set, mode string, res *agent.Result) error {
	var files []writeout.File
	var err error
	if mode == writeout.ModeJSON {
		files, err = writeout.ParseJSON(res.Output)
	} else {
		files, err = writeout.ParsePlain(res.Output)
		if err == nil && len(files) == 0 {
			files, err = writeout.ParsePlain(res.Raw)
		}
	}
	if err != nil {
		return err
	}
	for _, f := range files {
		if _, err := set.Accept(f.Path, f.Content); err != nil {
			return fmt.Errorf("the answer's file %q was refused: %w", f.Path, err)
		}
	}
	return nil
}

func sortedFiles(set *writeout.Set) []string {
	var out []string
	for rel := range set.Files() {
		out = append(out, rel)
	}
	sort.Strings(out)
	return out
}

func describeTargets(ts []writeout.Target) string {
	d := make([]string, len(ts))
	for i, t := range ts {
		d[i] = t.Describe()
	}
	return strings.Join(d, "; ")
}

// toolsOf is the stage's own tools as the loop sees them (nil for none).
func toolsOf(sess Toolset) agent.Tools {
	if sess == nil {
		return nil
	}
	return sess
}

// closer makes the write tool a Toolset; closing it closes nothing
// (the stage's own session is closed by its owner).
type closer struct{ w *writerTools }

func (c *closer) Tools() []llm.Tool { return c.w.Tools() }
func (c *closer) Call(ctx context.Context, name string, args map[string]any) (agent.ToolResult, error) {
	return c.w.Call(ctx, name, args)
}
func (*closer) Close() error { return nil }
