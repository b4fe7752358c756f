//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"testing"
)

// benchServer is a fixture entry without a pid directory (benchmarks do not
// use the per-test process check, and Close is asserted below instead).
func benchServer() Server {
	return Server{Name: "fx", Transport: TransportStdio, Command: fixtureBin, Source: "bench"}
}

func BenchmarkOpenClose(b *testing.B) {
	reg := Registry{"fx": benchServer()}
	for b.Loop() {
		s, err := Open(context.Background(), reg, map[string][]string{"fx": {"echo"}}, testOptions())
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallEcho(b *testing.B) {
	s, err := Open(context.Background(), Registry{"fx": benchServer()}, map[string][]string{"fx": {"echo"}}, testOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	args := map[string]any{"text": "hello"}
	for b.Loop() {
		res, err := s.Call(context.Background(), "fx_echo", args)
		if err != nil || res.Text != "hello" {
			b.Fatalf("%+v, %v", res, err)
		}
	}
}

func BenchmarkArgCheck(b *testing.B) {
	a := newArgSchema("search", json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"max_results":{"type":"integer","minimum":1}},"required":["query"]}`))
	args := map[string]any{"query": "local models", "max_results": 5}
	for b.Loop() {
		if msg := a.check("s_search", args); msg != "" {
			b.Fatal(msg)
		}
	}
}
