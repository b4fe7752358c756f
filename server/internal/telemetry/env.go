package telemetry

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc"

	"github.com/icm-tool/icm/server/internal/act"
)

// Protocols OTEL_EXPORTER_OTLP_PROTOCOL may name.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// Endpoint is where and how spans are sent, as the environment says.
type Endpoint struct {
	// URL is the full address: for http/protobuf the traces path included
	// (the base endpoint plus /v1/traces), for grpc the collector's address.
	URL      string
	Protocol string
}

// EndpointFromEnv reads the standard OTLP variables through getenv. It
// returns false when no endpoint is set or OTEL_SDK_DISABLED is true:
// exporting is then off.
func EndpointFromEnv(getenv func(string) string) (Endpoint, bool, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return Endpoint{}, false, nil
	}
	proto := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"))
	if proto == "" {
		proto = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
	}
	if proto == "" {
		proto = ProtocolHTTP
	}
	if proto != ProtocolHTTP && proto != ProtocolGRPC {
		return Endpoint{}, false, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: icm sends traces as %q or %q", proto, ProtocolHTTP, ProtocolGRPC)
	}
	ep := Endpoint{Protocol: proto}
	if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")); v != "" {
		ep.URL = v // a signal-specific endpoint is used as it is
	} else if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")); v != "" {
		ep.URL = v
		if proto == ProtocolHTTP {
			ep.URL = strings.TrimRight(v, "/") + "/v1/traces"
		}
	} else {
		return Endpoint{}, false, nil
	}
	u, err := url.Parse(ep.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Endpoint{}, false, fmt.Errorf("OTLP endpoint %q: write it as http://host:port or https://host:port", ep.URL)
	}
	return ep, true, nil
}

// FromEnv returns an Exporter for the OTLP endpoint the environment
// names, or nil (and no error) when none is set. OTEL_SERVICE_NAME
// overrides o.ServiceName.
func FromEnv(ctx context.Context, getenv func(string) string, o Options) (*Exporter, error) {
	ep, ok, err := EndpointFromEnv(getenv)
	if err != nil || !ok {
		return nil, err
	}
	if name := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); name != "" {
		o.ServiceName = name
	}
	var exp sdktrace.SpanExporter
	switch ep.Protocol {
	case ProtocolGRPC:
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(ep.URL),
			otlptracegrpc.WithDialOption(grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
				return act.Dial(ctx, own(), collector(ep.URL), "tcp", addr, act.Dialing{})
			})))
	default:
		var settings act.HTTP
		if settings, err = httpSettings(getenv); err != nil {
			return nil, err
		}
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(ep.URL),
			otlptracehttp.WithHTTPClient(act.HTTPClient(own(), collector(ep.URL), settings)))
	}
	if err != nil {
		return nil, fmt.Errorf("unable to set up the OTLP exporter for %s: %w", ep.URL, err)
	}
	return New(exp, o), nil
}
