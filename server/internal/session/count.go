package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/icm-tool/icm/server/internal/assemble"
	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/human"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/promptcount"
	"github.com/icm-tool/icm/server/internal/report"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Stage counts a stage's first calls the way its run will send them
// to the model it runs on (the precedence above), tool definitions
// included: exact with the model's own files when they are on this
// machine, else with the server's /tokenize, else estimated and
// calibrated by the workspace's past runs with the model (calibration);
// the count names its method. ws is the workspace as
// the caller sees it (the editor's buffers laid over); memo, when set,
// keeps the counts of stages that did not change; list lists a tool
// server (nil: the definitions are left out, and the count says so). A
// Script stage has no count (nil): its program makes whatever model
// calls it makes.
func (cn Counts) Stage(ctx context.Context, ws *workspace.Workspace, st *workspace.Stage, c *contract.Contract,
	opts assemble.Options, memo *promptcount.Memo, list promptcount.ToolLister) (*promptcount.Stage, error) {
	s := cn.s
	if c.Script != nil {
		return nil, nil // a Script stage makes no first call of its own
	}
	call := promptcount.CallOf(ctx, s.ws.Config.Model, c, s.opts.Settings.Model, list)
	return faulted(cn.counter(call.Model, memo).Stage(ctx, ws, st, c, opts, call))
}

// firstCalls counts a stage's first calls for model as a run is
// about to send them (workflow.Options.Count). The tool servers are not
// started yet: icm's own servers' definitions are known without starting
// them, so a stage whose tools are only theirs is complete; one that
// names another server is counted without its definitions, not complete.
func (cn Counts) firstCalls(ctx context.Context, st *workspace.Stage, c *contract.Contract, model string) (tokens.Count, int, bool) {
	s := cn.s
	call := promptcount.CallOf(ctx, s.ws.Config.Model, c, model, s.Tools().unstarted)
	n, err := cn.counter(call.Model, nil).Stage(ctx, s.ws, st, c, assemble.Options{}, call)
	if err != nil {
		return tokens.Count{}, 0, false
	}
	return n.Total, max(1, len(n.Items)), len(n.ToolsLeftOut) == 0
}

// counter counts calls to model: with the session's counting client, and
// calibrated by the workspace's runs with the model where it can only
// estimate.
func (cn Counts) counter(model string, memo *promptcount.Memo) *promptcount.Counter {
	s := cn.s
	return &promptcount.Counter{Client: s.countClient(), Memo: memo, Calibration: cn.calibration(model)}
}

// startingLister lists a stage's tool servers for a count the way a run
// starts them, each started, listed and stopped within wait (a command
// that counts once, such as icm probe). Untrusted, it starts nothing (see
// Tools.List).
func (s *Session) startingLister(wait time.Duration) promptcount.ToolLister {
	if !s.trust.Allowed() {
		return func(ctx context.Context, server string) ([]report.ToolInfo, error) {
			return s.Tools().unstarted(ctx, server)
		}
	}
	reg := s.toolRegistry()
	opts := s.toolOptions(s.ws.Root)
	opts.StartTimeout = wait
	return func(ctx context.Context, server string) ([]report.ToolInfo, error) {
		cat := tools.NewCatalog(opts)
		defer cat.Wait()
		ctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		infos, err := cat.ListTools(ctx, reg, server)
		if errors.Is(err, context.DeadlineExceeded) {
			err = fault.Failed(fmt.Sprintf("not listed within %s", human.Duration(wait)), "start the server by hand to see why it is slow, or list its tools again", err)
		}
		return infos, err
	}
}

// countClient is the client counting asks (for /api/tags, to match local
// model files; an OpenAI-compatible server's /tokenize), built once; nil
// when config.toml's [model] is unusable: counting then estimates.
func (s *Session) countClient() llm.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.counted {
		s.counter, _ = s.newClient()
		s.counted = true
	}
	return s.counter
}
