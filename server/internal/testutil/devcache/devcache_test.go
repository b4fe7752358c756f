package devcache

import (
	"context"
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	t.Setenv("CACHE_DIR", "/some/where")
	if got, err := Dir(); err != nil || got != "/some/where" {
		t.Errorf("with CACHE_DIR: %q, %v", got, err)
	}
	t.Setenv("CACHE_DIR", "")
	t.Setenv("HOME", "/home/dev")
	if got, err := Dir(); err != nil || got != "/home/dev/.cache/icm-dev" {
		t.Errorf("without CACHE_DIR: %q, %v", got, err)
	}
}

func TestLockExcludes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	// A second taker waits while the first holds the lock, and gives up
	// when its context ends.
	ctx, cancel := context.WithCancel(t.Context())
	result := make(chan error, 1)
	go func() {
		release, err := Lock(ctx, path)
		if err == nil {
			release()
		}
		result <- err
	}()
	cancel()
	if err := <-result; err == nil {
		t.Error("a second lock was granted while the first was held")
	}
	unlock()
	// Once free it is granted, also after the abandoned wait above has
	// taken and dropped it.
	for range 2 {
		release, err := Lock(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
}
