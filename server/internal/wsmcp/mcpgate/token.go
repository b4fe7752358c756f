// Package mcpgate stands between a transport and icm's MCP servers: the
// token the workspace server asks every HTTP request for, and the cap on
// the size of one request, over stdio and HTTP alike.
package mcpgate

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/icm-tool/icm/server/internal/fault"
)

// TokenFile is the token's file in the person's config folder.
const TokenFile = "mcp-token"

// minToken is the shortest token taken from a file: one a person wrote
// must be as hard to guess as the 43 characters icm makes.
const minToken = 32

// maxTokenFile bounds what is read of the file.
const maxTokenFile = 4 << 10

// Token returns the token kept in the config folder dir and its file's
// path, making both on first use. The file must be a regular file only
// its owner can read: one others can read (the token lets whoever holds
// it hand in outputs and run stages), a link, a folder or a file holding
// no usable token is an error saying what to do.
func Token(dir string) (token, file string, err error) {
	file = filepath.Join(dir, TokenFile)
	token, err = readToken(file)
	if !errors.Is(err, fs.ErrNotExist) {
		return token, file, err
	}
	if err := makeToken(dir, file); err != nil {
		return "", file, err
	}
	token, err = readToken(file)
	return token, file, err
}

// readToken reads and checks the token file.
func readToken(file string) (string, error) {
	info, err := os.Lstat(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("unable to read the workspace server's token %s: %w", file, err)
	}
	if err := usable(file, info); err != nil {
		return "", err
	}
	f, err := os.Open(file)
	if err != nil {
		return "", fmt.Errorf("unable to read the workspace server's token %s: %w", file, err)
	}
	defer f.Close()
	// Checked again on the file opened: it may have been swapped since.
	if info, err = f.Stat(); err != nil {
		return "", fmt.Errorf("unable to read the workspace server's token %s: %w", file, err)
	}
	if err := usable(file, info); err != nil {
		return "", err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFile))
	if err != nil {
		return "", fmt.Errorf("unable to read the workspace server's token %s: %w", file, err)
	}
	token := strings.TrimSpace(string(data))
	if len(token) < minToken || strings.ContainsAny(token, " \t\r\n") {
		return "", badTokenFile(file, "%s holds no usable token (one line of at least %d characters): remove it, and icm makes a new one", file, minToken)
	}
	return token, nil
}

// badTokenFile is a token file icm will not use: the message says why
// and what to do.
func badTokenFile(file, format string, args ...any) *fault.Error {
	return fault.ConfigInvalid(fmt.Sprintf(format, args...), "the token file must be a regular file only you can read; remove it, and icm makes a new one", file)
}

// usable checks that info is a regular file only its owner can read.
func usable(file string, info fs.FileInfo) error {
	if !info.Mode().IsRegular() {
		return badTokenFile(file, "%s is not a regular file (%s): icm keeps the workspace server's token there; remove it, and icm makes a new one", file, info.Mode().Type())
	}
	return private(file, info)
}

// makeToken writes a new random token to file, unless another icm made
// one first: it is written aside, then linked in place, which never
// replaces a file that is there.
func makeToken(dir, file string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("unable to make the config folder %s for the workspace server's token: %w", dir, err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return fmt.Errorf("unable to make a token: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+TokenFile+"-*") // mode 0600
	if err != nil {
		return fmt.Errorf("unable to write the workspace server's token in %s: %w", dir, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(base64.RawURLEncoding.EncodeToString(raw) + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), file)
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("unable to write the workspace server's token %s: %w", file, err)
	}
	return nil
}
