package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/icm-tool/icm/server/internal/fault"
)

// Lock is the run lock of a workspace: an OS file lock that frees itself
// when the process holding it dies, so a killed run never blocks the next.
type Lock struct {
	fl   *flock.Flock
	info string
}

// LockedError says another run holds the workspace.
type LockedError struct {
	Root   string
	Holder string // "pid 123 since 15:04:05", when known
}

func (e *LockedError) Error() string {
	s := fmt.Sprintf("another icm run is working in %s", e.Root)
	if e.Holder != "" {
		s += " (" + e.Holder + ")"
	}
	return s
}

// Fault says what to do: wait for the run or stop it.
func (e *LockedError) Fault() *fault.Error { return fault.Busy(e.Error()) }

type holder struct {
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Command string    `json:"command"`
}

// Acquire takes the run lock of the workspace at root without waiting.
func Acquire(root, command string) (*Lock, error) {
	dir := filepath.Join(root, ".icm")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("unable to create %s: %w", dir, err)
	}
	fl := flock.New(filepath.Join(dir, "run.lock"))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("unable to lock workspace %s: %w", root, err)
	}
	info := filepath.Join(dir, "run.json")
	if !ok {
		e := &LockedError{Root: root}
		if data, err := os.ReadFile(info); err == nil {
			var h holder
			if json.Unmarshal(data, &h) == nil && h.PID > 0 {
				e.Holder = fmt.Sprintf("pid %d, %s, since %s", h.PID, h.Command, h.Started.Format("15:04:05"))
			}
		}
		return nil, e
	}
	data, _ := json.Marshal(holder{PID: os.Getpid(), Started: time.Now(), Command: command})
	_ = WriteFile(info, data, 0o644)
	return &Lock{fl: fl, info: info}, nil
}

// Release frees the lock.
func (l *Lock) Release() error {
	os.Remove(l.info)
	return l.fl.Unlock()
}
