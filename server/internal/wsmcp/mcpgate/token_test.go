package mcpgate

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheTokenIsMadeOnceForItsOwnerAlone: the first call makes the
// folder and a token file only its owner can read (0600); later calls
// read the same token.
func TestTheTokenIsMadeOnceForItsOwnerAlone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "icm")
	token, file, err := Token(dir)
	if err != nil {
		t.Fatal(err)
	}
	if file != filepath.Join(dir, TokenFile) || len(token) < minToken {
		t.Fatalf("token %q in %s", token, file)
	}
	info, err := os.Lstat(file)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
		t.Errorf("the token file's mode is %v, want -rw-------", info.Mode())
	}
	again, _, err := Token(dir)
	if err != nil || again != token {
		t.Errorf("a second call read %q (%v), want the first token", again, err)
	}
	other, _, err := Token(filepath.Join(t.TempDir(), "icm"))
	if err != nil || other == token {
		t.Errorf("another folder's token is %q (%v): tokens must be random", other, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d files, want the token alone", len(entries))
	}
}

// TestAnUnsafeTokenFileIsRefused: a token file others can read, one that
// is a link or a folder, or one holding no usable token is refused with
// a message naming the file and what to do; nothing is rewritten.
func TestAnUnsafeTokenFileIsRefused(t *testing.T) {
	good := strings.Repeat("k", 43) + "\n"
	for _, tc := range []struct {
		name string
		make func(t *testing.T, file string)
		want string
	}{
		{"readable by others", func(t *testing.T, file string) { write(t, file, good, 0o644) }, "chmod 600"},
		{"readable by its group", func(t *testing.T, file string) { write(t, file, good, 0o640) }, "chmod 600"},
		{"a link", func(t *testing.T, file string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			write(t, target, good, 0o600)
			if err := os.Symlink(target, file); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"a folder", func(t *testing.T, file string) {
			if err := os.Mkdir(file, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"empty", func(t *testing.T, file string) { write(t, file, "", 0o600) }, "no usable token"},
		{"too short", func(t *testing.T, file string) { write(t, file, "secret\n", 0o600) }, "no usable token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, TokenFile)
			tc.make(t, file)
			before, _ := os.Lstat(file)
			_, got, err := Token(dir)
			if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Token = %v, want an error naming %s and saying %q", err, file, tc.want)
			}
			if got != file {
				t.Errorf("the file is said to be %s", got)
			}
			if after, _ := os.Lstat(file); after == nil || after.Mode() != before.Mode() || after.ModTime() != before.ModTime() {
				t.Error("the refused file was changed")
			}
		})
	}
}

func write(t *testing.T, file, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(file, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

// TestRequireToken: only "Authorization: Bearer TOKEN" is served (the
// scheme in any case); none, another token, a prefix of it or another
// scheme gets 401 and a WWW-Authenticate challenge, and next never runs.
func TestRequireToken(t *testing.T) {
	const token = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFG"
	served := 0
	h := RequireToken(token, "/home/p/.config/icm/mcp-token", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served++
		w.WriteHeader(http.StatusNoContent)
	}))
	ask := func(auth string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}"))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for _, auth := range []string{"", "Bearer", "Bearer ", "Bearer " + token[:len(token)-1], "Bearer " + token + "0", "Bearer " + strings.ToUpper(token), "Basic " + token, token} {
		rec := ask(auth)
		if rec.Code != http.StatusUnauthorized || rec.Header().Get("WWW-Authenticate") == "" || !strings.Contains(rec.Body.String(), "mcp-token") {
			t.Errorf("Authorization %q: %d %q", auth, rec.Code, rec.Body.String())
		}
	}
	if served != 0 {
		t.Fatalf("a request without the token was served %d times", served)
	}
	for _, auth := range []string{"Bearer " + token, "bearer " + token} {
		if rec := ask(auth); rec.Code != http.StatusNoContent {
			t.Errorf("Authorization %q: %d %s", auth, rec.Code, rec.Body.String())
		}
	}
	if served != 2 {
		t.Errorf("served %d times, want 2", served)
	}
}
