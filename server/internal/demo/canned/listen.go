package canned

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"
)

// server is one stand-in: an HTTP handler on a free port of 127.0.0.1.
type server struct {
	ln     net.Listener
	http   *http.Server
	cancel context.CancelFunc
	served chan struct{}
}

// listen serves h on a free loopback port until Close.
func listen(what string, h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("unable to start the demo's %s on 127.0.0.1: %w", what, err)
	}
	// Every request's context derives from base, so Close also ends a
	// call that waits for a slot or sleeps through the latency.
	base, cancel := context.WithCancel(context.Background())
	s := &server{ln: ln, cancel: cancel, served: make(chan struct{})}
	s.http = &http.Server{
		Handler:           h,
		BaseContext:       func(net.Listener) context.Context { return base },
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		defer close(s.served)
		_ = s.http.Serve(ln) // http.ErrServerClosed once Close is called
	}()
	return s, nil
}

// URL is the stand-in's base address, e.g. "http://127.0.0.1:41234".
func (s *server) URL() string { return "http://" + s.ln.Addr().String() }

// Host is the stand-in's "127.0.0.1:port", the form an allow-list takes.
func (s *server) Host() string { return s.ln.Addr().String() }

// Close stops the stand-in and waits until it no longer serves.
func (s *server) Close() {
	s.cancel()
	_ = s.http.Close()
	<-s.served
}
