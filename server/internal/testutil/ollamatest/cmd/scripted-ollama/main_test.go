package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// lockedBuffer is a bytes.Buffer safe for the server's concurrent log lines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestRunServesScriptUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	outR, outW := io.Pipe()
	var stderr lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, []string{"../../testdata/scripts/course.json"}, outW, &stderr)
		outW.Close()
	}()

	line, err := bufio.NewReader(outR).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL line: %v (stderr: %s)", err, stderr.String())
	}
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line = %q", line)
	}
	go io.Copy(io.Discard, outR) //nolint:errcheck // drain the rest

	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	client := api.NewClient(u, http.DefaultClient)
	var content string
	err = client.Chat(ctx, &api.ChatRequest{Model: "tiny", Messages: []api.Message{{Role: "user", Content: "write objectives"}}},
		func(r api.ChatResponse) error { content += r.Message.Content; return nil })
	if err != nil || content != "1. Learn Go" {
		t.Errorf("chat: %q, %v", content, err)
	}

	stop()
	if err := <-done; err != nil {
		t.Errorf("run returned %v after cancel", err)
	}
	if _, err := client.Version(ctx); err == nil {
		t.Error("the server still answers after run returned")
	}
	if log := stderr.String(); !strings.Contains(log, "POST /api/chat 200 rule 1") {
		t.Errorf("log = %q", log)
	}
}

func TestRunRefusesBadInvocations(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no script", nil, "give exactly one script file"},
		{"missing script", []string{"nope.json"}, "unable to read script nope.json"},
		{"bad script", []string{"testdata/bad.json"}, "testdata/bad.json:1:"},
		{"not loopback", []string{"-addr", "0.0.0.0:0", "../../testdata/scripts/minimal.json"}, "loopback addresses only"},
		{"bad flag", []string{"-port", "1"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		var stdout, stderr lockedBuffer
		err := run(t.Context(), tt.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
		if stdout.String() != "" {
			t.Errorf("%s: printed %q on stdout", tt.name, stdout.String())
		}
	}
}
