package sandbox

import (
	"fmt"
	"path"
	"strings"
	"time"
)

// Limits bound one step. Zero fields take the DefaultLimits value.
type Limits struct {
	// Timeout is the step's wall-clock limit.
	Timeout time.Duration `json:"timeout"`
	// CPU is the CPU time limit (RLIMIT_CPU, whole seconds, rounded up).
	CPU time.Duration `json:"cpu"`
	// Memory caps private writable memory (RLIMIT_DATA), in bytes.
	Memory int64 `json:"memory"`
	// FileSize caps any one file the step writes (RLIMIT_FSIZE), in bytes.
	FileSize int64 `json:"file_size"`
	// Processes caps the processes and threads of the run's user (RLIMIT_NPROC).
	Processes int `json:"processes"`
	// OpenFiles caps open file descriptors (RLIMIT_NOFILE).
	OpenFiles int `json:"open_files"`
	// Output caps stdout and stderr together, in bytes; past it the step is killed.
	Output int64 `json:"output"`
}

// DefaultLimits suit a snippet from an article: a few seconds, a few
// hundred megabytes, a handful of processes.
var DefaultLimits = Limits{
	Timeout:   10 * time.Second,
	CPU:       10 * time.Second,
	Memory:    512 << 20,
	FileSize:  16 << 20,
	Processes: 32,
	OpenFiles: 256,
	Output:    256 << 10,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	if l.CPU <= 0 {
		l.CPU = l.Timeout
	}
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.FileSize <= 0 {
		l.FileSize = d.FileSize
	}
	if l.Processes <= 0 {
		l.Processes = d.Processes
	}
	if l.OpenFiles <= 0 {
		l.OpenFiles = d.OpenFiles
	}
	if l.Output <= 0 {
		l.Output = d.Output
	}
	return l
}

// Bind makes a host folder visible in the sandbox at Target (inside /tmp).
// Every step sees it; its ownership and mode decide which step's user may
// use it (a build cache owned by the build user, mode 0700, is out of the
// run step's reach).
type Bind struct {
	Host   string `json:"host"`
	Target string `json:"target"`
	// Writable mounts it read-write; otherwise read-only.
	Writable bool `json:"writable,omitempty"`
}

// Step is one program run inside the sandbox. Steps of a Spec share the
// work folder, so a build step can leave a binary for the run step.
type Step struct {
	// Name labels the step in results ("parse", "build", "run").
	Name string `json:"name"`
	// Args is the program (an absolute path) and its arguments.
	Args []string `json:"args"`
	// Env is the complete environment of the program.
	Env []string `json:"env"`
	// Dir is the working folder, relative to the work folder ("" = the work folder).
	Dir    string `json:"dir,omitempty"`
	Limits Limits `json:"limits"`
	// UID and GID run this step as another unprivileged user than the
	// run's (0 = the run's own, fresh user); a build step uses a fixed one
	// that owns a persistent cache.
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
	// Continue runs the next step even when this one fails.
	Continue bool `json:"continue,omitempty"`
}

// Spec is what one Run does.
type Spec struct {
	// Files are written into the work folder before the first step
	// (slash-separated relative paths).
	Files map[string][]byte `json:"files"`
	Steps []Step            `json:"steps"`
	// Disk caps the work folder's tmpfs, in bytes (default 64 MiB).
	Disk int64 `json:"disk"`
	// Binds are host folders mounted into the work folder.
	Binds []Bind `json:"binds,omitempty"`
}

// WorkDir is where the work folder appears inside the sandbox.
const WorkDir = "/tmp"

func (s *Spec) validate() error {
	if len(s.Steps) == 0 {
		return fmt.Errorf("sandbox: a spec needs at least one step")
	}
	for name := range s.Files {
		if err := relPath(name); err != nil {
			return fmt.Errorf("sandbox: file %q: %w", name, err)
		}
	}
	for _, b := range s.Binds {
		if !path.IsAbs(b.Host) || !strings.HasPrefix(path.Clean(b.Target)+"/", WorkDir+"/") || path.Clean(b.Target) == WorkDir {
			return fmt.Errorf("sandbox: a bind needs an absolute host path and a target inside %s, got %q -> %q", WorkDir, b.Host, b.Target)
		}
	}
	for i, st := range s.Steps {
		if len(st.Args) == 0 || !path.IsAbs(st.Args[0]) {
			return fmt.Errorf("sandbox: step %d (%s) needs an absolute program path, got %q", i+1, st.Name, st.Args)
		}
		if st.Dir != "" {
			if err := relPath(st.Dir); err != nil {
				return fmt.Errorf("sandbox: step %s: dir %q: %w", st.Name, st.Dir, err)
			}
		}
		if (st.UID == 0) != (st.GID == 0) {
			return fmt.Errorf("sandbox: step %s: set both UID and GID or neither", st.Name)
		}
	}
	return nil
}

func relPath(p string) error {
	c := path.Clean(p)
	if p == "" || path.IsAbs(p) || c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("must be a relative path inside the work folder")
	}
	return nil
}

// StepResult is what one step did.
type StepResult struct {
	Name string `json:"name"`
	// Ran is false for steps skipped after an earlier one failed.
	Ran      bool `json:"ran"`
	ExitCode int  `json:"exit_code"`
	// Signal names the signal that killed the program ("" when it exited).
	Signal string `json:"signal,omitempty"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// OutputCapped: the program printed more than Limits.Output and was killed.
	OutputCapped bool `json:"output_capped,omitempty"`
	// TimedOut: the program ran past Limits.Timeout and was killed.
	TimedOut bool          `json:"timed_out,omitempty"`
	Duration time.Duration `json:"duration"`
	// Err is set when the step could not be started at all.
	Err string `json:"error,omitempty"`
}

// OK reports whether the step ran and exited 0.
func (r *StepResult) OK() bool {
	return r.Ran && r.Err == "" && r.ExitCode == 0 && r.Signal == "" && !r.TimedOut && !r.OutputCapped
}

// Result is what a Run did.
type Result struct {
	Steps []StepResult `json:"steps"`
	// Duration is the wall time of the whole run, set-up included.
	Duration time.Duration `json:"duration"`
	// UID is the fresh user the run's steps ran as (to look for leftovers).
	UID int `json:"uid"`
}

// Step returns the result of the named step, or nil.
func (r *Result) Step(name string) *StepResult {
	for i := range r.Steps {
		if r.Steps[i].Name == name {
			return &r.Steps[i]
		}
	}
	return nil
}

// OK reports whether every step ran and succeeded.
func (r *Result) OK() bool {
	for i := range r.Steps {
		if !r.Steps[i].OK() {
			return false
		}
	}
	return len(r.Steps) > 0
}
