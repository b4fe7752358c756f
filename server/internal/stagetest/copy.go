package stagetest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/contract"
	"github.com/icm-tool/icm/server/internal/testcase"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// A case runs in a copy of its workspace's repository context, made in a
// private temporary folder (0700) that stands for the repository root:
// the workspace at the same place below it as below its repository, the
// shared files its stages read (`/_core/...`) at theirs, and a .git
// marker at the top, so the copy's shared inputs resolve there and never
// above it (in the temporary folder's parent, where anyone may write).
// Inside the workspace, a link that stays inside is a link in the copy;
// one that leads out is left out. A file over the read cap is a hole of
// the same size (refused in the copy, as in the workspace, for its size),
// and the zero blocks of other files are holes too: a copy costs what the
// workspace's files hold, not what they claim.

// copyPlace is where the workspace sits below the copy's folder: its
// path below its repository, or its folder's name when it has none.
func copyPlace(src *workspace.Workspace) string {
	if src.Repository != "" {
		if rel, err := filepath.Rel(src.Repository, src.Root); err == nil && rel != "." && rel != ".." &&
			!strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return rel
		}
	}
	return filepath.Base(src.Root)
}

// layOut makes the copy's folder and returns it (the top, to remove when
// done) with the workspace's place in it.
func layOut(src *workspace.Workspace) (top, dst string, err error) {
	top, err = os.MkdirTemp("", "icm-test-*") // 0700
	if err != nil {
		return "", "", fmt.Errorf("unable to make a folder for the test copy: %w", err)
	}
	dst = filepath.Join(top, copyPlace(src))
	if err := os.MkdirAll(dst, 0o755); err != nil {
		os.RemoveAll(top)
		return "", "", fmt.Errorf("unable to make a folder for the test copy: %w", err)
	}
	// The copy's repository root is top: nothing above it is read.
	if err := os.Mkdir(filepath.Join(top, ".git"), 0o700); err != nil {
		os.RemoveAll(top)
		return "", "", fmt.Errorf("unable to make a folder for the test copy: %w", err)
	}
	return top, dst, nil
}

// copyWorkspace copies the workspace src into dst (which must exist),
// leaving out what skipDir names, through the workspace's Root: a file
// swapped for a link meanwhile is refused, and files are streamed.
func copyWorkspace(src *workspace.Workspace, dst string) error {
	stageTests := map[string]bool{}
	for _, st := range src.Stages {
		stageTests[st.Rel+"/"+testcase.Dir] = true
	}
	max := src.Disk.MaxRead()
	return src.Disk.WalkDir(".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		switch {
		case d.IsDir():
			if skipDir(rel, d.Name(), stageTests) {
				return fs.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			return copyLink(src.Disk, rel, target)
		case d.Type().IsRegular():
			if err := copyFile(src.Disk, rel, target, max); err != nil {
				return fmt.Errorf("unable to copy %s into the test copy: %w", rel, err)
			}
		}
		return nil // named pipes, devices, sockets: not files a stage reads
	})
}

// copyLink makes the link rel of root in the copy when it stays inside:
// a relative link to the same place, however the original was written.
// A link that leads out (or loops) is left out.
func copyLink(root *workspace.Root, rel, target string) error {
	real, err := root.Resolve(rel)
	if err != nil {
		return nil
	}
	to, err := filepath.Rel(filepath.Dir(filepath.FromSlash(rel)), filepath.FromSlash(real))
	if err != nil {
		return nil
	}
	return os.Symlink(to, target)
}

// copyBlock is what copyFile reads and writes at a time.
const copyBlock = 64 << 10

// copyFile copies the regular file rel of root to target with its mode
// (write access for the copy's owner added). A file over max is a hole
// of its size, never read; the zero blocks of others are holes.
func copyFile(root *workspace.Root, rel, target string, max int64) error {
	in, info, err := root.Open(rel)
	if err != nil {
		return err
	}
	defer in.Close()
	perm := info.Mode().Perm()&0o755 | 0o600
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if info.Size() > max {
		if err := out.Truncate(info.Size()); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	size, err := copyHoles(out, io.LimitReader(in, max+1))
	if err == nil {
		err = out.Truncate(size)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyHoles copies r to f, seeking over blocks of zeros instead of
// writing them, and returns how many bytes it copied.
func copyHoles(f *os.File, r io.Reader) (int64, error) {
	buf := make([]byte, copyBlock)
	zero := make([]byte, copyBlock)
	var n int64
	for {
		got, err := io.ReadFull(r, buf)
		if got > 0 {
			if bytes.Equal(buf[:got], zero[:got]) {
				if _, serr := f.Seek(int64(got), io.SeekCurrent); serr != nil {
					return n, serr
				}
			} else if _, werr := f.Write(buf[:got]); werr != nil {
				return n, werr
			}
			n += int64(got)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// copyShared copies into top the files of the repository that src's
// stages read from outside the workspace (their inputs, their For each
// sources), each at its place below the repository root, through the
// repository's read-only Root and by the same caps.
func copyShared(src *workspace.Workspace, top string) error {
	done := map[string]bool{}
	for _, st := range src.Stages {
		if st.Escape != nil {
			continue
		}
		data, err := src.Files.ReadFile(st.Contract)
		if err != nil {
			continue // check says why
		}
		k := contract.Parse(st.Contract, data)
		var paths []string
		for _, in := range k.Inputs {
			if in.Path != "" && !in.NonFile && !in.Templated {
				paths = append(paths, in.Path)
			}
		}
		if fe := k.ForEach; fe != nil && fe.Path != "" {
			paths = append(paths, fe.Path)
		}
		for _, p := range paths {
			pattern := ""
			if strings.ContainsAny(p, "*?[") {
				p, pattern = path.Split(p)
				if strings.ContainsAny(p, "*?[") || p == "" {
					continue
				}
			}
			abs, shared, err := src.ResolveInput(st.Dir, p)
			if err != nil || !shared || done[abs+"\x00"+pattern] {
				continue
			}
			done[abs+"\x00"+pattern] = true
			root := src.InputRoot(abs)
			rel, ok := root.Rel(abs)
			if !ok {
				continue
			}
			if err := copyTree(root, rel, filepath.Join(top, filepath.FromSlash(rel)), pattern); err != nil {
				return fmt.Errorf("unable to copy the shared input %s into the test copy: %w", p, err)
			}
		}
	}
	return nil
}

// copyTree copies rel of root to target: a file, or a folder's files
// (those whose names match pattern, when given), hidden ones left out.
func copyTree(root *workspace.Root, rel, target, pattern string) error {
	info, err := root.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // check says it is missing; the copy misses it too
	}
	if err != nil {
		return err
	}
	if !info.IsDir() {
		if _, err := os.Lstat(target); err == nil {
			return nil // an earlier input's folder brought it
		}
		return copyFile(root, rel, target, root.MaxRead())
	}
	return root.WalkDir(rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != rel && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if pattern != "" {
			if ok, _ := path.Match(pattern, d.Name()); !ok || path.Dir(p) != rel {
				return nil
			}
		}
		sub := strings.TrimPrefix(strings.TrimPrefix(p, rel), "/")
		to := filepath.Join(target, filepath.FromSlash(sub))
		if _, err := os.Lstat(to); err == nil {
			return nil
		}
		return copyFile(root, p, to, root.MaxRead())
	})
}
