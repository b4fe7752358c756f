package act

import (
	"errors"
	"fmt"
)

// Permit decides whether an action may happen now: nil allows it; an
// error says why not (for a person).
type Permit interface {
	Permit(Action) error
}

// PermitFunc is a function that decides as a Permit.
type PermitFunc func(Action) error

// Permit calls f.
func (f PermitFunc) Permit(a Action) error { return f(a) }

// Refusal is an action a permit did not allow (or that came with no
// permit). It wraps the permit's reason, so a fault the permit returned
// is found by errors.As.
type Refusal struct {
	Action Action
	Err    error
}

func (r *Refusal) Error() string { return fmt.Sprintf("icm did not %s: %v", r.Action, r.Err) }

// Unwrap returns the permit's reason.
func (r *Refusal) Unwrap() error { return r.Err }

// errNoPermit is why an action without a permit is refused: the code
// that asked forgot to pass one, which is a bug, never a reason to act.
var errNoPermit = errors.New("nothing permitted it (a bug in icm: the caller passed no permit)")

// errNoProgram refuses an action that names nothing to start.
var errNoProgram = errors.New("it names no program")

// Ask asks p about a and returns nil or the *Refusal: for what is
// neither a process nor a connection of icm's but makes another party
// act (a pull the model server makes). A nil p refuses.
func Ask(p Permit, a Action) error {
	if p == nil {
		return &Refusal{Action: a, Err: errNoPermit}
	}
	if err := p.Permit(a); err != nil {
		return &Refusal{Action: a, Err: err}
	}
	return nil
}

// Own is the permit of icm's own work, whose target no workspace names
// (the code sandbox, the page reader under its address policy, a
// browser it drives); reason says what the work is. It allows only Self
// and Contact actions: what a workspace names takes its trust's permit.
// Only the packages TestOwnIsClassified lists use it.
func Own(reason string) Permit {
	return PermitFunc(func(a Action) error {
		if a.Kind == Self || a.Kind == Contact {
			return nil
		}
		return fmt.Errorf("%s is icm's own work, and a %s is something a workspace names: only its trust allows it", reason, a.Kind)
	})
}
