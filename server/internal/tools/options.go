package tools

import (
	"log/slog"
	"os"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/reap"
)

// Options tune toolsets and the catalog. Zero fields take the defaults
// listed on each.
type Options struct {
	// Dir is the working directory of stdio servers (the workspace).
	Dir string
	// CallTimeout bounds one tool call (default 2m; config.toml
	// [workflow] tool_timeout).
	CallTimeout time.Duration
	// StartTimeout bounds starting one server: spawn, initialize and
	// listing its tools (default 30s).
	StartTimeout time.Duration
	// ShutdownGrace is how long Close waits after closing stdin, and again
	// after SIGTERM, before escalating (default 2s).
	ShutdownGrace time.Duration
	// LookupEnv reads icm's environment, from which stdio servers inherit
	// only PATH, HOME, LANG and TMPDIR (default os.LookupEnv).
	LookupEnv func(string) (string, bool)
	// StderrBytes is how much of each server's stderr is kept (default 64 KiB).
	StderrBytes int
	// StderrLines is how many last stderr lines errors quote (default 20).
	StderrLines int
	// MaxResultBytes caps the text kept from one result; the rest is cut
	// with a marker (default 1 MiB). Result.Size is the size before the cut.
	MaxResultBytes int
	// ClientName and ClientVersion are sent at initialize (default "icm", "dev").
	ClientName    string
	ClientVersion string
	// Logger receives mcp-go's transport logs (default: discarded).
	Logger *slog.Logger
	// Permit is asked as each server is about to start or be contacted
	// (package act): the workspace's trust. nil refuses every server.
	Permit act.Permit
	// Reaper is the binary that runs each stdio server as a child
	// subreaper, so processes it starts that leave its process group
	// (setsid) are still ended with the toolset (default: this binary, on
	// Linux; "-" runs servers directly).
	Reaper string
	// exitLinger is how long after a child exits its stdout stays open for
	// a last answer still in the pipe.
	exitLinger time.Duration
}

// DefaultOptions are the options for a workspace: servers run in it and
// calls are bounded by its tool_timeout.
func DefaultOptions(workspaceDir string, cfg config.Config) Options {
	return Options{Dir: workspaceDir, CallTimeout: cfg.Workflow.ToolTimeout.Duration}
}

func (o Options) withDefaults() Options {
	if o.CallTimeout <= 0 {
		o.CallTimeout = 2 * time.Minute
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 30 * time.Second
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = 2 * time.Second
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.StderrBytes <= 0 {
		o.StderrBytes = 64 * 1024
	}
	if o.StderrLines <= 0 {
		o.StderrLines = 20
	}
	if o.MaxResultBytes <= 0 {
		o.MaxResultBytes = 1 << 20
	}
	if o.ClientName == "" {
		o.ClientName = "icm"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	switch o.Reaper {
	case "":
		o.Reaper = reap.Self()
	case "-":
		o.Reaper = ""
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.exitLinger <= 0 {
		o.exitLinger = 200 * time.Millisecond
	}
	return o
}
