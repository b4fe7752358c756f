package cli

import (
	"github.com/icm-tool/icm/server/internal/session"
)

// stepContext is what an icm subcommand run by a Script stage (icm
// code-check, icm critique, icm research) needs of the run that started
// it: a session over its workspace and the session's step for the stage.
type stepContext struct {
	sess *session.Session
	step *session.Step
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
	req := session.StepRequest{Stage: env.Getenv("ICM_STAGE"), RunID: env.Getenv("ICM_RUN_ID"), NeedModel: needModel}
	if cwd, err := env.Getwd(); err == nil {
		req.Dir = cwd
	}
	step, err := sess.Runs().Step(req)
	if err != nil {
		sess.Close()
		return nil, err
	}
	return &stepContext{sess: sess, step: step}, nil
}

func (sc *stepContext) close() {
	sc.step.Close()
	sc.sess.Close()
}
