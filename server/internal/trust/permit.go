package trust

import (
	"errors"
	"fmt"
	"strings"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/tools"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Permit is the decision as the permit of what icm is about to do for
// the workspace ws (the decision's own, or a stage test's copy of it,
// whose files are the ones that run), asked at the moment a process
// starts or a connection opens (package act). It allows an action a
// workspace names only when the decision allows acting and one of its
// parts is that action: the same kind and the same value, computed from
// the action by the functions that list the parts. A command's files are
// pinned again as they are now, so a file changed since the decision
// refuses the command, naming the file. own are the model server
// addresses the person's own settings name (their setting, OLLAMA_HOST,
// Ollama's default): contacting one needs no trust, as it is not the
// workspace's.
func (d Decision) Permit(ws *workspace.Workspace, own ...string) act.Permit {
	return permit{d: d, ws: ws, own: own}
}

// Person is the permit of a person's own settings alone, where no
// workspace decides: contacting the model servers own names. Nothing a
// workspace names is allowed.
func Person(own ...string) act.Permit { return permit{own: own} }

// permit is a decision, the workspace whose files run, and the person's
// own model servers.
type permit struct {
	d   Decision
	ws  *workspace.Workspace
	own []string
}

// Permit allows a or says why not.
func (p permit) Permit(a act.Action) error {
	n := a.Named
	switch a.Kind {
	case act.Contact:
		if len(n.Headers) == 0 && p.owns(n.Address) {
			return nil
		}
		return p.named(Server, serverValue(n.Address, n.Headers), nil)
	case act.Pull:
		v, other := PullValue(n.Model)
		if !other || !p.d.Parts.Names(Pull, v) {
			return nil // Ollama's own registry, or a name the person gave
		}
		return p.named(Pull, v, nil)
	case act.ToolServer:
		s := tools.Server{Command: n.Command, Args: n.Args, Env: n.Env, Dir: n.Dir}
		return p.named(Command, commandLine(s), func(l *lister) []Pin {
			return l.pins.argv(l.serverDir(s), append([]string{s.Command}, s.Args...), true)
		})
	case act.Script, act.Check, act.CaseCheck:
		kind := map[act.Kind]Kind{act.Script: Script, act.Check: Check, act.CaseCheck: CaseCheck}[a.Kind]
		return p.named(kind, n.Line, func(l *lister) []Pin { return l.pins.shell(a.Dir, n.Line) })
	}
	return errors.New("it is icm's own work, which a workspace's trust does not allow: it takes icm's own permit")
}

// owns reports whether addr is a model server the person's own
// settings name.
func (p permit) owns(addr string) bool {
	for _, o := range p.own {
		if SameAddress(o, addr) {
			return true
		}
	}
	return false
}

// named allows the part of kind with value when the decision allows
// acting and names it; pins, when set, pins the command's files as they
// are now, and a file that changed since the decision refuses it.
func (p permit) named(kind Kind, value string, pins func(*lister) []Pin) error {
	root := p.d.Root
	if p.ws != nil {
		root = p.ws.Root
	}
	if p.d.State == "" {
		return fault.Untrusted("no workspace's trust decides here: only the model servers your own settings name are contacted", root)
	}
	if !p.d.Allowed() {
		return p.untrusted(root)
	}
	var parts []Part
	for _, part := range p.d.Parts {
		if part.Kind == kind && part.Value == value {
			parts = append(parts, part)
		}
	}
	if len(parts) == 0 {
		return fault.Untrusted(fmt.Sprintf("the workspace %s did not name it when its trust was decided: look at what it names now, and trust it if you expect all of it", root), root)
	}
	if pins == nil || p.ws == nil {
		return nil
	}
	if files := pinChanges(parts, pins(&lister{ws: p.ws, pins: newPinner(p.ws)})); len(files) > 0 {
		return fault.Untrusted(fmt.Sprintf("%s, in the workspace %s: look at the change, and trust the workspace again if you expect it", strings.Join(files, "; "), root), root)
	}
	return nil
}

// untrusted is the refusal of a decision that does not allow acting.
func (p permit) untrusted(root string) error {
	f := fault.Untrusted(fmt.Sprintf("the workspace %s is %s", root, p.d.Summary()), root)
	if p.d.State == Restricted {
		f.Hint = "the workspace is served read-only while Restricted Mode is on: trust the folder itself first"
	}
	return f
}

// SameAddress compares two server addresses as written, ignoring case,
// spaces around them and a trailing slash.
func SameAddress(a, b string) bool {
	norm := func(s string) string { return strings.ToLower(strings.TrimRight(strings.TrimSpace(s), "/")) }
	return norm(a) != "" && norm(a) == norm(b)
}
