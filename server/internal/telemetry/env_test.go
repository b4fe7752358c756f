package telemetry

import (
	"context"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
)

func TestEndpointFromEnv(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want Endpoint
		on   bool
		err  string
	}{
		{name: "nothing set", env: map[string]string{}},
		{name: "base endpoint gets the traces path", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318/"},
			want: Endpoint{URL: "http://127.0.0.1:4318/v1/traces", Protocol: ProtocolHTTP}, on: true},
		{name: "traces endpoint as it is", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:1", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:2/custom"},
			want: Endpoint{URL: "http://b:2/custom", Protocol: ProtocolHTTP}, on: true},
		{name: "grpc keeps the address", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			want: Endpoint{URL: "http://127.0.0.1:4317", Protocol: ProtocolGRPC}, on: true},
		{name: "traces protocol wins", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"},
			want: Endpoint{URL: "http://h:4317", Protocol: ProtocolGRPC}, on: true},
		{name: "disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h:1", "OTEL_SDK_DISABLED": "TRUE"}},
		{name: "json is not offered", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://h:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, err: "http/json"},
		{name: "no scheme", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, err: "http://host:port"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, on, err := EndpointFromEnv(func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || on != tc.on || got != tc.want {
				t.Errorf("got %+v %v %v, want %+v %v", got, on, err, tc.want, tc.on)
			}
		})
	}
}

func TestNilExporterIsOff(t *testing.T) {
	x, err := FromEnv(context.Background(), func(string) string { return "" }, Options{})
	if x != nil || err != nil {
		t.Fatalf("FromEnv with nothing set: %v %v", x, err)
	}
	if f := x.Observe(RunInfo{}); f != nil {
		t.Error("a nil exporter observes")
	}
	if err := x.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
	n := 0
	count := func(report.Event) { n++ }
	if Tee(nil, nil) != nil {
		t.Error("Tee of nothing is not nil")
	}
	Tee(nil, count, x.Observe(RunInfo{}), count)(report.Event{})
	if n != 2 {
		t.Errorf("Tee called %d functions, want 2", n)
	}
}
