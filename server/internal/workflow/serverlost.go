package workflow

import (
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"
)

// serverLost is a model server that stopped answering while a stage ran,
// after it had answered in this run: the stage's failure in the words a
// person needs (what stopped, during which stage, what is kept) instead
// of the client's ("stage 04-draft [3/5]: ... dial tcp ...").
type serverLost struct {
	msg   string
	stage string
	cause error
}

func (e *serverLost) Error() string { return e.msg }
func (e *serverLost) Unwrap() error { return e.cause }

// Fault is the cause's fault (its hint and its fixes: start the server,
// point icm at another) with the stage's words and the stage itself.
func (e *serverLost) Fault() *fault.Error {
	fe := *fault.From(e.cause)
	fe.Msg, fe.Stage, fe.Err = e.msg, e.stage, e
	return &fe
}

// explainLost words a failure that came from the model server going away
// mid-run, or its runner stopping (explainStopped); any other error is
// returned as it is. A server that never
// answered in this run keeps the client's words ("no model server at
// URL"): nothing stopped, it was never there.
func (r *run) explainLost(err error) error {
	if fault.KindOf(err) == fault.KindRunnerStopped {
		return r.explainStopped(err)
	}
	if fault.KindOf(err) != fault.KindModelUnreachable || !r.e.answered.Load() {
		return err
	}
	what := "the model servers stopped answering"
	for _, a := range fault.From(err).Actions {
		if a.ID == fault.StartServer && a.URL != "" {
			what = fmt.Sprintf("the model server at %s stopped answering", a.URL)
			break
		}
	}
	msg := fmt.Sprintf("%s during %s", what, r.st.Name) + r.itemsKept()
	return &serverLost{msg: msg, stage: r.st.Name, cause: err}
}

// itemsKept says how many of a For each stage's items finished before it
// failed ("" for a stage without items).
func (r *run) itemsKept() string {
	n := r.res.Items
	if n == 0 {
		return ""
	}
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	switch done {
	case 0:
		return fmt.Sprintf("; none of its %d items had finished", n)
	case 1:
		return fmt.Sprintf("; 1 of %d items is kept", n)
	}
	return fmt.Sprintf("; %d of %d items are kept", done, n)
}

// runnerStopped is a model server's runner that stopped while a stage
// ran: the cause's hint (the likely cause, the fix) with the stage's
// words, how many items it ran at once, and config.toml to change.
type runnerStopped struct {
	msg, stage, config string
	cause              error
}

func (e *runnerStopped) Error() string { return e.msg }
func (e *runnerStopped) Unwrap() error { return e.cause }

// Fault is a runner-stopped fault with the stage's words, the cause's
// hint and config.toml, where parallel and the server's setup are.
func (e *runnerStopped) Fault() *fault.Error {
	f := fault.RunnerStopped(e.msg, fault.From(e.cause).Hint, e.config).In(e.stage)
	f.Err = e
	return f
}

// explainStopped words a runner that stopped under a stage's call: the
// stage, how many of its items ran at once (the likely cause, when more
// than one: a second call copying the first one's computed prompt) and
// what is kept.
func (r *run) explainStopped(err error) error {
	msg := "the model runner stopped during " + r.st.Name
	if p := r.e.ws.Config.Workflow.Parallel; r.c.ForEach != nil && p > 1 {
		msg += fmt.Sprintf(", which runs %d items at once", p)
	}
	return &runnerStopped{msg: msg + r.itemsKept(), stage: r.st.Name, config: r.e.ws.Config.Path, cause: err}
}
