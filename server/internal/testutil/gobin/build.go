package gobin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/icm-tool/icm/server/internal/testutil/devcache"
)

// Build returns the path of an up-to-date executable of pkg (an import
// path) as built in the module at module, and builds it only when its
// source changed since the last Build from any process.
//
// The executable lives in the developer's cache folder
// (devcache.Dir()/test-bin/NAME-HASH/NAME, one folder per module folder
// and package, so two checkouts never share one). Under a file lock, go
// build writes a staging copy, which the go command relinks only when
// something it was built from changed (an up-to-date check takes well
// under a second, a link several); when the staging copy differs from the
// executable, it is copied to a temporary name and renamed over the
// executable. So a test binary that runs the executable while another
// rebuilds it keeps running the old one, and no process ever sees half a
// file.
func Build(ctx context.Context, module, pkg string) (string, error) {
	cache, err := devcache.Dir()
	if err != nil {
		return "", err
	}
	name := filepath.Base(pkg)
	sum := sha256.Sum256([]byte(module + "\x00" + pkg))
	dir := filepath.Join(cache, "test-bin", name+"-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(filepath.Join(dir, "stage"), 0o755); err != nil {
		return "", fmt.Errorf("unable to create the build folder: %w", err)
	}
	unlock, err := devcache.Lock(ctx, filepath.Join(dir, "lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	stage := filepath.Join(dir, "stage", name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", stage, pkg)
	cmd.Dir = module
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build -o %s %s (in %s): %w\n%s", stage, pkg, module, err, out.Bytes())
	}
	exe := filepath.Join(dir, name)
	same, err := sameContent(stage, exe)
	if err != nil {
		return "", err
	}
	if !same {
		if err := replace(exe, stage); err != nil {
			return "", err
		}
	}
	return exe, nil
}

// replace puts a copy of src at dst in one step: written under a
// temporary name beside dst, then renamed over it.
func replace(dst, src string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+"-*")
	if err != nil {
		return fmt.Errorf("unable to copy the built %s: %w", filepath.Base(dst), err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = io.Copy(tmp, in); err != nil {
		return fmt.Errorf("unable to copy the built %s: %w", filepath.Base(dst), err)
	}
	if err = tmp.Chmod(0o755); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// sameContent reports whether the files a and b hold the same bytes; a
// missing b is not the same.
func sameContent(a, b string) (bool, error) {
	fb, err := os.Open(b)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer fb.Close()
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	sa, err := fa.Stat()
	if err != nil {
		return false, err
	}
	sb, err := fb.Stat()
	if err != nil || sa.Size() != sb.Size() {
		return false, err
	}
	// The sizes are equal, so both files end at the same read.
	ba, bb := make([]byte, 1<<20), make([]byte, 1<<20)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return true, nil
		}
		if err := errors.Join(ea, eb); err != nil {
			return false, err
		}
	}
}
