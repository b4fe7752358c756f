package session

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxGitConfig bounds a git config file read for the reviewer's name.
const maxGitConfig = 1 << 20

// reviewer names the person approving: git's user name (the workspace's
// repository's own setting first, then the person's global ones), else
// the account's name. The files are read, not git run: naming a person
// starts no process.
func (s *Session) reviewer() string {
	home := s.opts.Getenv("HOME")
	var files []string
	for dir := s.ws.Root; ; dir = filepath.Dir(dir) {
		if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil && fi.IsDir() {
			files = append(files, filepath.Join(dir, ".git", "config"))
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	if x := s.opts.Getenv("XDG_CONFIG_HOME"); x != "" {
		files = append(files, filepath.Join(x, "git", "config"))
	} else if home != "" {
		files = append(files, filepath.Join(home, ".config", "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	for _, f := range files {
		if name := gitUserName(f); name != "" {
			return name
		}
	}
	for _, v := range []string{"USER", "USERNAME", "LOGNAME"} {
		if name := s.opts.Getenv(v); name != "" {
			return name
		}
	}
	return "user"
}

// gitUserName is the name of a git config file's [user] section ("" when
// the file or the key is absent). The last one set wins, as in git.
func gitUserName(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, maxGitConfig))
	name, section := "", ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(strings.Fields(strings.Trim(line, "[]") + " ")[0], `"`))
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if ok && section == "user" && strings.EqualFold(strings.TrimSpace(key), "name") {
			name = strings.Trim(strings.TrimSpace(val), `"`)
		}
	}
	return name
}
