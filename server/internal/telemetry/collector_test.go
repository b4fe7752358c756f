package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Spans reach the collector the environment names through icm's own
// client (package act), over http/protobuf.
func TestSpansReachTheCollectorThroughTheGate(t *testing.T) {
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/traces" {
			posts.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL}
	x, err := FromEnv(context.Background(), func(k string) string { return env[k] }, Options{})
	if err != nil || x == nil {
		t.Fatalf("FromEnv: %v %v", x, err)
	}
	_, span := x.tracer.Start(context.Background(), "a span")
	span.End()
	if err := x.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if posts.Load() == 0 {
		t.Fatal("the collector got no spans")
	}
}

// The client icm hands the http/protobuf exporter reads what the
// exporter's own would have: the timeout in milliseconds and the
// certificates, the traces' variables first; a bad value is an error
// that names the variable.
func TestTheCollectorClientReadsTheExportersVariables(t *testing.T) {
	get := func(env map[string]string) func(string) string { return func(k string) string { return env[k] } }
	o, err := httpSettings(get(map[string]string{}))
	if err != nil || o.Timeout != defaultExportTimeout || o.Tune != nil {
		t.Errorf("nothing set: %+v %v", o, err)
	}
	o, err = httpSettings(get(map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "5000", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "250"}))
	if err != nil || o.Timeout != 250*time.Millisecond {
		t.Errorf("timeouts: %v %v, want the traces' 250ms", o.Timeout, err)
	}
	if _, err := httpSettings(get(map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"})); err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_TIMEOUT") {
		t.Errorf("a bad timeout: %v", err)
	}
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := httpSettings(get(map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": notPEM})); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("a file with no certificate: %v", err)
	}
	if _, err := httpSettings(get(map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": notPEM + ".missing"})); err == nil {
		t.Error("a missing certificate file was accepted")
	}
}
