package session

import (
	"sort"
	"strconv"
	"strings"

	"github.com/icm-tool/icm/server/internal/ollamamodel"
)

// Sharing a computed prompt start between For each items (docs/prefill.md).
//
// Ollama keeps a computed prompt in the slot that ran it; items that run
// at once get a slot each and compute the start they share each, unless
// the server copies one slot's computed start into another
// (OLLAMA_MULTIUSER_CACHE=1). That copy is safe only on Ollama's own
// engine: llama.cpp's runner stops at the first one (GGML_ASSERT ...
// seq_cp() is only supported for full KV buffers). Which runner serves a
// model follows from its architecture, which icm reads from the model's
// file when it is on this machine.

// Ollama's variables for what sharing needs.
const (
	envMultiuserCache = "OLLAMA_MULTIUSER_CACHE"
	envNumParallel    = "OLLAMA_NUM_PARALLEL"
)

// modelEngine is the runner that serves model, read from its file where
// a local Ollama keeps it; false when the file is not on this machine.
func (s *Session) modelEngine(model string) (ollamamodel.Engine, bool) {
	if model == "" {
		return ollamamodel.Engine{}, false
	}
	f, err := ollamamodel.Find(ollamamodel.ModelsDirs(s.opts.Getenv), model)
	if err != nil {
		return ollamamodel.Engine{}, false
	}
	e, err := ollamamodel.EngineOf(f)
	if err != nil {
		return ollamamodel.Engine{}, false
	}
	return e, true
}

// sharingEnv is what an Ollama icm starts for this workspace needs so
// that parallel For each items share their computed start: the
// multi-user cache and as many slots as items run at once, only where
// the model runs on Ollama's new engine and the workspace runs items in
// parallel, and never a variable the person set in the environment
// themselves. Empty when nothing is to be set.
func (s *Session) sharingEnv(model string) map[string]string {
	parallel := s.ws.Config.Workflow.Parallel
	if parallel < 2 {
		return nil
	}
	e, ok := s.modelEngine(model)
	if !ok || !e.NewEngine() {
		return nil
	}
	env := map[string]string{}
	if s.opts.Getenv(envMultiuserCache) == "" {
		env[envMultiuserCache] = "1"
	}
	if s.opts.Getenv(envNumParallel) == "" {
		env[envNumParallel] = strconv.Itoa(parallel)
	}
	return env
}

// withEnv writes command with env's variables before it, as a POSIX
// shell takes them: "OLLAMA_MULTIUSER_CACHE=1 OLLAMA_NUM_PARALLEL=4
// ollama serve" (the editor reads them back into the terminal's
// environment, whatever its shell).
func withEnv(command string, env map[string]string) string {
	if len(env) == 0 {
		return command
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys)+1)
	for _, k := range keys {
		parts = append(parts, k+"="+env[k])
	}
	return strings.Join(append(parts, command), " ")
}
