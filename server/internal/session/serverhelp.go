package session

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
)

// OllamaDownload is where a person gets Ollama.
const OllamaDownload = "https://ollama.com/download"

// DemoCommand runs icm's demo: the sample pipeline with canned answers.
const DemoCommand = "icm demo"

// onThisMachine adds to a model server that does not answer what this
// machine says about it, when the server is an Ollama expected here (a
// loopback address): the ollama program is not installed (install it, or
// try the demo first), or it is installed and not running (start it).
// model is the model the stage needs, for the pull after installing.
// Other faults come back unchanged.
func (s *Session) onThisMachine(f *fault.Error, model string) *fault.Error {
	if f == nil || f.Kind != fault.KindModelUnreachable {
		return f
	}
	var start *fault.Action
	for i := range f.Actions {
		if a := &f.Actions[i]; a.ID == fault.StartServer && strings.HasPrefix(a.Command, "ollama ") && loopback(a.URL) {
			start = a
		}
	}
	if start == nil {
		return f
	}
	g := *f
	demo := fault.Action{ID: fault.TryDemo, Command: DemoCommand}
	set := fault.Action{ID: fault.SetServer, URL: start.URL}
	// The message names the address once; the hints do not again.
	if !onPath("ollama", s.opts.Getenv("PATH")) {
		g.Msg += "; Ollama is not installed on this machine"
		install := fault.Action{ID: fault.InstallServer, URL: OllamaDownload, Model: model}
		if !defaultAddress(start.URL) {
			// An address the person chose: what listens there is theirs
			// (a container, another program), most likely stopped.
			g.Hint = "start the server you run there, or set another address; or install Ollama, or try the demo"
			g.Actions = []fault.Action{set, demo, install}
			return &g
		}
		g.Hint = "install Ollama, start it and pull the model; or try the pipeline first without a model, with the demo's canned answers"
		g.Actions = []fault.Action{install, demo, set}
		return &g
	}
	g.Msg += "; Ollama is installed here but not running"
	g.Hint = "start Ollama and run again, or set another address, or try the demo"
	g.Actions = []fault.Action{*start, set, demo}
	if env := s.sharingEnv(model); len(env) > 0 {
		// Started by icm, the server shares the computed start of the
		// prompt between the items that run at once (docs/prefill.md).
		for i := range g.Actions {
			if a := &g.Actions[i]; a.ID == fault.StartServer && a.Command == start.Command {
				a.Command = withEnv(a.Command, env)
			}
		}
	}
	return &g
}

// defaultAddress reports whether raw is Ollama's own address on this
// machine (port 11434 on a loopback host), where an installed Ollama
// listens unless told otherwise.
func defaultAddress(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && loopback(raw) && u.Port() == "11434"
}

// loopback reports whether raw is an address on this machine.
func loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// onPath reports whether an executable named name is in one of the
// folders of path (a PATH value).
func onPath(name, path string) bool {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		info, err := os.Stat(filepath.Join(dir, name))
		if err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return true
		}
	}
	return false
}
