package workspace

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// A write's temporary file is named ".NAME.tmp-PID-RANDOM": the process
// that writes it is in the name, so a later run can tell the leftovers of
// a process that was killed between creating and renaming (which stay
// forever otherwise) from the files of one that is writing right now (an
// approval from the editor does not take the run lock).

// tempName is the name of a temporary file for base, unique by rnd.
func tempName(base, rnd string) string {
	return "." + base + ".tmp-" + strconv.Itoa(os.Getpid()) + "-" + rnd
}

// tempOwner returns the pid in a temporary file's name; false when name
// is not one.
func tempOwner(name string) (int, bool) {
	if !strings.HasPrefix(name, ".") {
		return 0, false
	}
	_, rest, ok := strings.Cut(name, ".tmp-")
	if !ok {
		return 0, false
	}
	pid, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	return n, err == nil && n > 0
}

// alive reports whether a process with that pid exists.
func alive(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// SweepTemps removes the temporary files that writes of processes no
// longer running left in the tree's folders dirs and below (links are not
// followed), and returns how many it removed. Folders that do not exist
// are skipped. A run calls it with the run lock held, on the folders only
// icm writes (state, output, history).
func (r *Root) SweepTemps(dirs ...string) (int, error) {
	n := 0
	var errs []error
	for _, dir := range dirs {
		err := r.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() {
				return nil
			}
			pid, ok := tempOwner(d.Name())
			if !ok || alive(pid) {
				return nil
			}
			if err := r.Remove(p); err != nil {
				return err
			}
			n++
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}
