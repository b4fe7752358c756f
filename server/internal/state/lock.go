package state

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/icm-tool/icm/server/internal/fault"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// Lock is the run lock of a workspace: an OS file lock that frees itself
// when the process holding it dies, so a killed run never blocks the next.
type Lock struct {
	f    *os.File
	root *workspace.Root
	info string
	held holder
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
func (e *LockedError) Fault() *fault.Error { return fault.Locked(e.Error()) }

type holder struct {
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Command string    `json:"command"`
	// Stage is the stage the run works on now, once it started one.
	Stage string `json:"stage,omitempty"`
}

// Lock file names inside the workspace's .icm folder.
const (
	lockFile   = StateDir + "/run.lock"
	holderFile = StateDir + "/run.json"
)

// Acquire takes the run lock of the workspace without waiting. The lock
// file is opened through the workspace's Root, so a .icm folder linked out
// of the workspace is refused rather than locked.
func Acquire(root *workspace.Root, command string) (*Lock, error) {
	if err := root.MkdirAll(StateDir); err != nil {
		return nil, fmt.Errorf("unable to create the workspace's %s folder: %w", StateDir, err)
	}
	f, err := root.OpenFile(lockFile, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("unable to lock workspace %s: %w", root.Dir(), err)
	}
	ok, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("unable to lock workspace %s: %w", root.Dir(), err)
	}
	if !ok {
		f.Close()
		e := &LockedError{Root: root.Dir()}
		if data, err := root.ReadFileMax(holderFile, maxStateFile); err == nil {
			var h holder
			if json.Unmarshal(data, &h) == nil && h.PID > 0 {
				e.Holder = fmt.Sprintf("pid %d, %s, since %s", h.PID, h.Command, h.Started.Format("15:04:05"))
			}
		}
		return nil, e
	}
	l := &Lock{f: f, root: root, info: holderFile, held: holder{PID: os.Getpid(), Started: time.Now(), Command: command}}
	l.write()
	return l, nil
}

// Working says which stage the run works on now, for whoever asks while
// it runs (Running): `icm status` in another terminal, the editor.
func (l *Lock) Working(stage string) {
	l.held.Stage = stage
	l.write()
}

// write tells who holds the lock; what cannot be written only leaves
// others knowing less (the lock itself holds).
func (l *Lock) write() {
	data, _ := json.Marshal(l.held)
	_ = l.root.WriteCheckpoint(l.info, data, 0o644)
}

// Release frees the lock.
func (l *Lock) Release() error {
	_ = l.root.Remove(l.info)
	err := unlock(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// RunGoing reports whether a run holds the workspace's lock now, and since
// when, without taking the lock (so asking never refuses a run starting at
// that moment): the holder file a run writes, with its process alive.
func RunGoing(root *workspace.Root) (since time.Time, going bool) {
	h, going := runHolder(root)
	return h.Started, going
}

// RunningStage reports whether a run holds the workspace's lock now, as
// RunGoing does, and the stage it works on ("" before its first).
func RunningStage(root *workspace.Root) (stage string, going bool) {
	h, going := runHolder(root)
	return h.Stage, going
}

// runHolder reads who holds the run lock, if a live process does.
func runHolder(root *workspace.Root) (holder, bool) {
	data, err := root.ReadFileMax(holderFile, maxStateFile)
	if err != nil {
		return holder{}, false
	}
	var h holder
	if json.Unmarshal(data, &h) != nil || h.PID <= 0 || !alive(h.PID) {
		return holder{}, false
	}
	return h, true
}
