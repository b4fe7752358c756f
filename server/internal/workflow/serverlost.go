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
// mid-run; any other error is returned as it is. A server that never
// answered in this run keeps the client's words ("no model server at
// URL"): nothing stopped, it was never there.
func (r *run) explainLost(err error) error {
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
	msg := fmt.Sprintf("%s during %s", what, r.st.Name)
	if n := r.res.Items; n > 0 {
		r.mu.Lock()
		done := r.done
		r.mu.Unlock()
		switch done {
		case 0:
			msg += fmt.Sprintf("; none of its %d items had finished", n)
		case 1:
			msg += fmt.Sprintf("; 1 of %d items is kept", n)
		default:
			msg += fmt.Sprintf("; %d of %d items are kept", done, n)
		}
	}
	return &serverLost{msg: msg, stage: r.st.Name, cause: err}
}
