package ollamamodel

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// The files of a models folder are read under the rules a workspace's
// are read under: only regular files, opened without waiting (a named
// pipe would block the open until a writer comes, which may be never),
// and each read capped, a larger file refused unread.

// maxManifest bounds a manifest: real ones are a kilobyte or two.
const maxManifest = 1 << 20

// openRegular opens path for reading when it is a regular file, checked
// on the open descriptor.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file (%s)", path, kindOf(info.Mode()))
	}
	return f, info, nil
}

// readRegular reads a regular file of at most max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	f, info, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > max {
		return nil, fmt.Errorf("%s is larger than %d KB, more than such a file holds", path, max>>10)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d KB, more than such a file holds", path, max>>10)
	}
	return data, nil
}

// kindOf names a file type for people.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "not a file"
}
