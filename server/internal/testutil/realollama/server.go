package realollama

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Names under which Launch creates the tiny model: ModelName for the
// byte-level vocabulary, Qwen3ModelName for Qwen3's.
const (
	ModelName      = "icm-tiny"
	Qwen3ModelName = "icm-qwen3"
)

//go:embed testdata/Modelfile
var modelfile []byte

//go:embed testdata/Modelfile.qwen3
var qwen3Modelfile []byte

// modelNameFor and modelfileFor pick by vocabulary (spec has its defaults).
func modelNameFor(spec ModelSpec) string {
	if spec.Vocabulary == VocabQwen3 {
		return Qwen3ModelName
	}
	return ModelName
}

func modelfileFor(spec ModelSpec) []byte {
	if spec.Vocabulary == VocabQwen3 {
		return qwen3Modelfile
	}
	return modelfile
}

// stopGrace is how long Stop lets the server shut its runners down after
// SIGTERM before it kills the whole process group.
const stopGrace = 10 * time.Second

// Options configure Launch and Start; the zero value is a usable default.
type Options struct {
	// NumParallel sets OLLAMA_NUM_PARALLEL; 0 means 1.
	NumParallel int
	// Model chooses the tiny model's parameters (context length, seed,
	// end chance); the zero value means the defaults.
	Model ModelSpec
	// Env adds or overrides variables of the server's environment, e.g.
	// OLLAMA_CONTEXT_LENGTH or OLLAMA_KEEP_ALIVE.
	Env map[string]string
	// Dir holds the server's models, home and log; empty means a new
	// temporary folder that Stop removes.
	Dir string
	// CacheDir is passed to Build.
	CacheDir string
	// Log, if set, also receives the server's log lines and the build output.
	Log io.Writer
}

// Server is a running `ollama serve` with the tiny model created.
type Server struct {
	// URL is the base URL, e.g. http://127.0.0.1:43121 (what OLLAMA_HOST takes).
	URL string
	// Model is the name to put in requests (ModelName or Qwen3ModelName).
	Model string
	// ModelsDir is the server's OLLAMA_MODELS: its manifests and blobs,
	// laid out as on any machine that runs Ollama.
	ModelsDir string
	// ContextLength is the model's trained context length, as /api/show reports it.
	ContextLength int
	// Binary is the server executable that runs.
	Binary Binary
	// LogPath is the server's combined stdout and stderr.
	LogPath string
	// Registry is the host:port of an empty HTTPS registry on 127.0.0.1
	// that the server trusts; see MissingModel.
	Registry string

	dir     string
	ownsDir bool
	cmd     *exec.Cmd
	exited  chan struct{}
	waitErr error
	stop    sync.Once
	stopErr error
	reg     *registry
}

// Launch builds (or reuses) the server, starts `ollama serve` on a free
// loopback port in its own process group with a minimal environment,
// waits until it answers, and creates the tiny model in it. Call Stop.
func Launch(ctx context.Context, opts Options) (*Server, error) {
	bin, err := Build(ctx, BuildOptions{CacheDir: opts.CacheDir, Log: opts.Log})
	if err != nil {
		return nil, err
	}
	dir, ownsDir := opts.Dir, false
	if dir == "" {
		if dir, err = os.MkdirTemp("", "icm-ollama-*"); err != nil {
			return nil, fmt.Errorf("unable to create a folder for the Ollama server: %w", err)
		}
		ownsDir = true
	}
	spec := opts.Model.withDefaults()
	modelDir := filepath.Join(dir, "model")
	if err := writeModelFolder(modelDir, spec, opts.CacheDir); err != nil {
		cleanupDir(dir, ownsDir)
		return nil, err
	}
	reg, err := startRegistry(filepath.Join(dir, "registry-ca.pem"))
	if err != nil {
		cleanupDir(dir, ownsDir)
		return nil, err
	}
	s, err := startServe(ctx, bin, dir, reg, opts)
	if err != nil {
		reg.close()
		cleanupDir(dir, ownsDir)
		return nil, err
	}
	s.ownsDir = ownsDir
	s.Model = modelNameFor(spec)
	s.ContextLength = int(spec.ContextLength)
	if err := s.createModel(ctx, modelDir); err != nil {
		return nil, errors.Join(err, s.Stop(context.WithoutCancel(ctx)))
	}
	return s, nil
}

func cleanupDir(dir string, owned bool) {
	if owned {
		os.RemoveAll(dir)
	}
}

// writeModelFolder writes tiny.gguf and the Modelfile that names it. The
// byte-level model is written afresh (half a megabyte); the Qwen3 one is
// generated once into the cache (see cachedModel) and linked.
func writeModelFolder(dir string, spec ModelSpec, cacheDir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("unable to create model folder %s: %w", dir, err)
	}
	gguf := filepath.Join(dir, "tiny.gguf")
	if spec.Vocabulary == VocabBytes {
		if err := WriteModel(gguf, spec); err != nil {
			return err
		}
	} else {
		cached, err := cachedModel(spec, cacheDir)
		if err != nil {
			return err
		}
		if err := os.Symlink(cached, gguf); err != nil {
			return fmt.Errorf("unable to link the model %s: %w", cached, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "Modelfile"), modelfileFor(spec), 0o644); err != nil {
		return fmt.Errorf("unable to write %s: %w", filepath.Join(dir, "Modelfile"), err)
	}
	return nil
}

// startServe tries a few free ports: another process can take the port
// between our probe and the server's bind.
func startServe(ctx context.Context, bin Binary, dir string, reg *registry, opts Options) (*Server, error) {
	var errs []error
	for range 3 {
		s, err := startServeOnce(ctx, bin, dir, reg, opts)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
		if !errors.Is(err, errPortTaken) || ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

var errPortTaken = errors.New("the port was taken")

func startServeOnce(ctx context.Context, bin Binary, dir string, reg *registry, opts Options) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	host := "127.0.0.1:" + strconv.Itoa(port)
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, fmt.Errorf("unable to create %s: %w", home, err)
	}
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("unable to open server log %s: %w", logPath, err)
	}
	var sink io.Writer = logFile
	if opts.Log != nil {
		sink = io.MultiWriter(logFile, opts.Log)
	}
	watch := newLineWatcher(sink, "Listening on "+host+" ")

	cmd := exec.Command(bin.Path, "serve")
	cmd.Dir = dir
	cmd.Env = serverEnv(host, dir, home, reg.certFile, opts)
	cmd.Stdout, cmd.Stderr = watch, watch
	cmd.SysProcAttr = newProcessGroup()
	// A runner that outlives the server would keep the output pipe open
	// and so hold up Wait; after the server's exit, stop copying soon.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("unable to start %s serve: %w", bin.Path, err)
	}
	s := &Server{
		URL:       "http://" + host,
		ModelsDir: filepath.Join(dir, "models"),
		Binary:    bin,
		LogPath:   logPath,
		Registry:  reg.host(),
		dir:       dir,
		cmd:       cmd,
		exited:    make(chan struct{}),
		reg:       reg,
	}
	go func() {
		s.waitErr = cmd.Wait()
		logFile.Close()
		close(s.exited)
	}()

	select {
	case <-watch.seen:
	case <-s.exited:
		log := readTail(logPath)
		if strings.Contains(log, "address already in use") {
			return nil, fmt.Errorf("%w: %s", errPortTaken, host)
		}
		return nil, fmt.Errorf("ollama serve exited before listening on %s (%v); its log %s ends:\n%s", host, s.waitErr, logPath, log)
	case <-ctx.Done():
		return nil, errors.Join(fmt.Errorf("gave up waiting for ollama serve on %s: %w", host, ctx.Err()), s.Stop(context.WithoutCancel(ctx)))
	}
	if _, err := s.Version(ctx); err != nil {
		return nil, errors.Join(err, s.Stop(context.WithoutCancel(ctx)))
	}
	return s, nil
}

// serverEnv is the whole environment of the server: nothing is inherited
// from ours (no secrets, no stray OLLAMA_* settings), HOME is private so the
// server's key pair lands in the temporary folder, cloud features are off,
// and the only certificate it trusts is the test registry's.
func serverEnv(host, dir, home, certFile string, opts Options) []string {
	parallel := opts.NumParallel
	if parallel <= 0 {
		parallel = 1
	}
	env := map[string]string{
		"PATH":                "/usr/local/bin:/usr/bin:/bin",
		"HOME":                home,
		"TMPDIR":              os.TempDir(),
		"OLLAMA_HOST":         host,
		"OLLAMA_MODELS":       filepath.Join(dir, "models"),
		"OLLAMA_NUM_PARALLEL": strconv.Itoa(parallel),
		"OLLAMA_NO_CLOUD":     "1",
		"SSL_CERT_FILE":       certFile,
		"SSL_CERT_DIR":        filepath.Join(dir, "no-certs"),
	}
	for k, v := range opts.Env {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("unable to find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Version asks the server's /api/version.
func (s *Server) Version(ctx context.Context) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/version", nil)
	if err != nil {
		return "", fmt.Errorf("unable to ask %s for its version: %w", s.URL, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("unable to ask %s for its version: %w", s.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("unable to ask %s for its version: status %d, %v: %s", s.URL, resp.StatusCode, err, body)
	}
	return string(bytes.TrimSpace(body)), nil
}

// createModel runs `ollama create` against the server, as a person would.
func (s *Server) createModel(ctx context.Context, modelDir string) error {
	cmd := exec.CommandContext(ctx, s.Binary.Path, "create", s.Model, "-f", filepath.Join(modelDir, "Modelfile"))
	cmd.Dir = modelDir
	cmd.Env = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + filepath.Join(s.dir, "home"),
		"OLLAMA_HOST=" + strings.TrimPrefix(s.URL, "http://"),
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("unable to create model %s from %s: %w\n%s", s.Model, modelDir, err, tail(string(out), 2000))
	}
	return nil
}

// MissingModel returns a model name that exists nowhere: pulling it asks
// the empty test registry (over HTTPS on 127.0.0.1), which answers 404, so
// the server reports a pull failure as it would for a misspelt name.
func (s *Server) MissingModel(name string) string {
	return s.Registry + "/library/" + name + ":latest"
}

// RegistryRequests counts the requests the test registry has answered, to
// show that a pull really asked it.
func (s *Server) RegistryRequests() int { return int(s.reg.requests.Load()) }

// Done is closed when the server process has exited.
func (s *Server) Done() <-chan struct{} { return s.exited }

// Pid is the server's process id, which is also its process group id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// LogTail returns the end of the server's log, for failure messages.
func (s *Server) LogTail() string { return readTail(s.LogPath) }

func readTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(unable to read %s: %v)", path, err)
	}
	return tail(string(data), 4000)
}

// Stop ends the server: SIGTERM to its process group so it can stop its
// runners, SIGKILL to the group after stopGrace (or when ctx ends), then it
// checks that no process of the group is left. It removes the folder Launch
// created. Calling it again returns the first result.
func (s *Server) Stop(ctx context.Context) error {
	s.stop.Do(func() { s.stopErr = s.terminate(ctx) })
	return s.stopErr
}

func (s *Server) terminate(ctx context.Context) error {
	pgid := s.Pid()
	_ = signalGroup(pgid, sigTerm)
	grace := time.NewTimer(stopGrace)
	defer grace.Stop()
	select {
	case <-s.exited:
	case <-grace.C:
	case <-ctx.Done():
	}
	// Runners are the server's children in the same group; whatever is
	// still there now is killed outright.
	_ = signalGroup(pgid, sigKill)
	<-s.exited
	s.reg.close()
	var errs []error
	if err := waitGroupGone(ctx, pgid); err != nil {
		errs = append(errs, err)
	}
	if s.ownsDir {
		if err := os.RemoveAll(s.dir); err != nil {
			errs = append(errs, fmt.Errorf("unable to remove %s: %w", s.dir, err))
		}
	}
	return errors.Join(errs...)
}
