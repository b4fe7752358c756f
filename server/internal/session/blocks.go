package session

import (
	"context"
	"fmt"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/state"
)

// blocks are what stands before a run besides the stages' own states:
// a run holding the workspace (its lock says which stage it works on),
// the trust decision, and the model server when facts say it was down.
// Each front end's next step comes from them (state's next), so none
// says a stage is ready to run while something holds it up.
func (s *Session) blocks(facts *ModelFacts) state.Blocks {
	var b state.Blocks
	b.Running, b.Busy = state.RunningStage(s.ws.Disk)
	b.Untrusted = !s.trust.Allowed()
	if facts != nil && facts.Down != nil {
		b.Server, b.Start = s.serverBlock(facts.Down)
	}
	return b
}

// serverBlock says that the model server does not answer, as its fault
// does, and the one thing to do first: start it (with the command, when
// icm knows it), install it, or point icm at one that runs.
func (s *Session) serverBlock(down error) (what, fix string) {
	f := s.onThisMachine(fault.From(down), s.Model())
	for _, a := range f.Actions {
		switch {
		case a.ID == fault.StartServer && a.Command != "":
			return f.Msg, fmt.Sprintf("start it: `%s`", a.Command)
		case a.ID == fault.InstallServer:
			return f.Msg, fmt.Sprintf("install Ollama (%s) and start it", a.URL)
		case a.ID == fault.SetServer:
			return f.Msg, "start it, or point icm at one that runs ([model] base_url in config.toml, or OLLAMA_HOST)"
		}
	}
	if f.Hint != "" {
		return f.Msg, f.Hint
	}
	return f.Msg, "start it"
}

// Facts asks the model server in force which models it has, for
// StatusWith: nil when it may not be asked (the workspace names it and
// is not trusted, which the next step says first) or answered without
// its list, else what it answered, or Down with why it did not answer.
func (ms ModelServer) Facts(ctx context.Context) *ModelFacts {
	s := ms.s
	if s.modelBlocked() {
		return nil
	}
	names, err := ms.Models(ctx)
	if err != nil {
		if fault.KindOf(err) == fault.KindModelUnreachable {
			return &ModelFacts{Down: err}
		}
		return nil // it answered, but not with its models: judge none
	}
	return &ModelFacts{Installed: names, Known: true}
}
