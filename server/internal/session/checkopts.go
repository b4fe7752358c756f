package session

import (
	"github.com/icm-tool/icm/server/internal/check"
	"github.com/icm-tool/icm/server/internal/tokens"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// CheckFacts are what a front end has learned, besides the workspace's
// files, that a check of it may use: the model server's answers (its
// window, its models) and the files the workspace holds. The zero value
// is what `icm check` knows: nothing learned from a server, so a check
// never waits on one.
type CheckFacts struct {
	// Window is the model's context window as the model server told it
	// (0: not asked, or no answer). A window config.toml states wins.
	Window int
	// Models are what the model server said of its models; nil (or not
	// Known) while it has not answered, which leaves config.toml's model
	// name unjudged.
	Models *ModelFacts
	// Files lists the workspace's files for path suggestions; nil walks
	// the disk once per check.
	Files func() []string
}

// CheckOptions are the options of every check of the session's
// workspace: `icm check`, `icm status`, the editor's diagnostics, the
// workspace MCP server and a run's pre-flight all check with them, so an
// error means the same everywhere (a stage that will not run). facts
// are what the caller learned; the rest comes from the workspace and
// the person's settings: the window config.toml states, the room kept
// for the answer, the tool servers and the tools listed so far, the
// conventions profile.
func (s *Session) CheckOptions(facts CheckFacts) check.Options {
	window := facts.Window
	if w, ok := s.ModelServer().ConfiguredWindow(); ok {
		window = w
	}
	listed := s.Tools().names()
	opts := check.Options{
		Window:  window,
		Reserve: tokens.MinAnswerRoom,
		Servers: s.box.Names(),
		Tools: func(server string) ([]string, bool) {
			names, ok := listed[server]
			return names, ok
		},
		Files:       facts.Files,
		Conventions: s.opts.Settings.Conventions,
	}
	if m := facts.Models; m != nil && m.Known {
		opts.Models = append([]string{}, m.Installed...)
		opts.ModelServer = s.serverName()
	}
	return opts
}

// checkWith runs the workspace's checks over files (nil: the disk) with
// the options CheckOptions makes of facts.
func (s *Session) checkWith(files workspace.Files, facts CheckFacts) *check.Report {
	return check.Run(s.view(files), s.CheckOptions(facts))
}
