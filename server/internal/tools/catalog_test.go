//go:build linux

package tools

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icm-tool/icm/server/internal/report"
)

func TestCatalogListsEachServerOnce(t *testing.T) {
	f := newFixture(t)
	cat := NewCatalog(testOptions())
	t.Cleanup(cat.Wait)
	reg := Registry{"fx": f.server("fx")}

	// Concurrent requests share one start.
	var wg sync.WaitGroup
	lists := make([][]report.ToolInfo, 4)
	errs := make([]error, 4)
	for i := range lists {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lists[i], errs[i] = cat.ListTools(context.Background(), reg, "fx")
		}()
	}
	wg.Wait()
	for i := range lists {
		if errs[i] != nil {
			t.Fatalf("ListTools: %v", errs[i])
		}
		if len(lists[i]) != len(lists[0]) || len(lists[i]) < 5 {
			t.Fatalf("listing %d has %d tools", i, len(lists[i]))
		}
	}
	if _, err := cat.ListTools(context.Background(), reg, "fx"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.pids()); n != 1 {
		t.Errorf("server started %d times, want once", n)
	}
	var echo *report.ToolInfo
	for i, ti := range lists[0] {
		if ti.Name == "echo" {
			echo = &lists[0][i]
		}
	}
	if echo == nil || echo.Exposed != "fx_echo" || echo.Server != "fx" || !strings.Contains(string(echo.InputSchema), `"text"`) || echo.Description == "" {
		t.Errorf("echo listed as %+v", echo)
	}

	// A changed configuration is a different server.
	changed := f.server("fx", "-name", "fx2")
	if _, err := cat.ListTools(context.Background(), Registry{"fx": changed}, "fx"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.pids()); n != 2 {
		t.Errorf("changed configuration: %d starts, want 2", n)
	}
	cat.Forget()
	if _, err := cat.ListTools(context.Background(), reg, "fx"); err != nil {
		t.Fatal(err)
	}
	if n := len(f.pids()); n != 3 {
		t.Errorf("after Forget: %d starts, want 3", n)
	}
}

func TestCatalogRemembersFailures(t *testing.T) {
	f := newFixture(t)
	cat := NewCatalog(testOptions())
	t.Cleanup(cat.Wait)
	now := time.Unix(1000, 0)
	cat.now = func() time.Time { return now }
	reg := Registry{"bad": f.server("bad", "-exit-at-start", "2")}

	for i := 0; i < 2; i++ {
		_, err := cat.ListTools(context.Background(), reg, "bad")
		var se *ServerError
		if !errors.As(err, &se) || se.Kind != FailExited {
			t.Fatalf("error = %v, want the exit", err)
		}
	}
	if n := len(f.pids()); n != 1 {
		t.Errorf("failing server started %d times within the TTL, want once", n)
	}
	now = now.Add(cat.ErrorTTL + time.Second)
	if _, err := cat.ListTools(context.Background(), reg, "bad"); err == nil {
		t.Fatal("no error")
	}
	if n := len(f.pids()); n != 2 {
		t.Errorf("after the TTL: %d starts, want 2", n)
	}
	if _, err := cat.ListTools(context.Background(), reg, "nosuch"); err == nil || !strings.Contains(err.Error(), "not configured") {
		t.Errorf("unknown server: %v", err)
	}
}
