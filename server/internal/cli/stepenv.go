package cli

import (
	"fmt"
	"path/filepath"

	"github.com/icm-tool/icm/server/internal/agent"
	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/session"
	"github.com/icm-tool/icm/server/internal/workflow"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// stepContext is what an icm subcommand run by a Script stage (icm
// code-check, icm critique, icm research) needs of the run that started
// it: the workspace, the stage, the model and the run's trace. Outside a
// run the same commands work from flags and the workspace's config.
type stepContext struct {
	ws     *workspace.Workspace
	sess   *session.Session
	stage  string
	model  string
	client llm.Client
	trace  *workflow.TraceAppender
}

// openStep reads ICM_WORKSPACE, ICM_STAGE, ICM_RUN_ID and ICM_MODEL (set
// by the engine for Script stages); model overrides ICM_MODEL and the
// configured model. needModel makes a missing model an error.
func openStep(env *Env, g *globalFlags, model string, needModel bool) (*stepContext, error) {
	gf := *g
	if gf.workspace == "" {
		gf.workspace = env.Getenv("ICM_WORKSPACE")
	}
	if model == "" {
		model = env.Getenv("ICM_MODEL")
	}
	sess, err := openSession(env, &gf, session.Settings{Model: model})
	if err != nil {
		return nil, err
	}
	ws := sess.Workspace()
	sc := &stepContext{ws: ws, sess: sess, stage: env.Getenv("ICM_STAGE")}
	if sc.stage == "" {
		if cwd, err := env.Getwd(); err == nil {
			sc.stage = stageAt(ws, cwd)
		}
	}
	sc.model = sess.Model()
	if needModel && sc.model == "" {
		return nil, fmt.Errorf("no model named; pass --model, set [model] name in config.toml, or run this from a Script stage (which sets ICM_MODEL)")
	}
	if needModel {
		if sc.client, err = sess.Client(); err != nil {
			return nil, err
		}
	}
	if id := env.Getenv("ICM_RUN_ID"); id != "" {
		if sc.trace, err = workflow.AppendTrace(ws, id, sc.stage); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// observer is where the subcommand's model and tool events go: the run's
// trace when there is a run.
func (sc *stepContext) observer(item string) func(agent.Event) {
	if sc.trace == nil {
		return nil
	}
	return sc.trace.Observer(item)
}

func (sc *stepContext) close() {
	sc.trace.Close()
	sc.sess.Close()
}

// stageAt names the stage whose folder holds dir, or "".
func stageAt(ws *workspace.Workspace, dir string) string {
	for _, st := range ws.Stages {
		if rel, err := filepath.Rel(st.Dir, dir); err == nil && rel == "." {
			return st.Name
		}
	}
	return ""
}
