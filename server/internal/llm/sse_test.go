package llm

import (
	"context"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func readAllEvents(t testing.TB, stream string) ([]string, *failure) {
	o := &conn{settings: defaultSettings(), base: &url.URL{Scheme: "http", Host: "127.0.0.1"}, dialect: openAIDialect}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	wd := &watchdog{cancel: cancel}
	defer wd.stop()
	var got []string
	f := o.readEvents(ctx, ctx, strings.NewReader(stream), wd, func(raw []byte) *failure {
		got = append(got, string(raw))
		return nil
	})
	return got, f
}

func TestReadEvents(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"two events then done", "data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\ndata: {\"late\":1}\n\n", []string{`{"a":1}`, `{"b":2}`}},
		{"crlf and comments", ": keep-alive\r\n\r\ndata:{\"a\":1}\r\n\r\n", []string{`{"a":1}`}},
		{"multi-line data", "data: {\"a\":\ndata: 1}\n\n", []string{"{\"a\":\n1}"}},
		{"other fields ignored", "event: message\nid: 3\ndata: {}\n\n", []string{"{}"}},
		{"last event without blank line", "data: {\"x\":1}", []string{`{"x":1}`}},
	}
	for _, tc := range cases {
		got, f := readAllEvents(t, tc.in)
		if f != nil {
			t.Errorf("%s: failure %+v", tc.name, f)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: events %q, want %q", tc.name, got, tc.want)
		}
	}
}

func FuzzReadEvents(f *testing.F) {
	f.Add("data: {\"a\":1}\n\ndata: [DONE]\n\n")
	f.Add(": ping\r\ndata: x\r\n\r\n")
	f.Add("data: [DONE]")
	f.Fuzz(func(t *testing.T, in string) {
		got, _ := readAllEvents(t, in)
		for _, e := range got {
			if e == "[DONE]" || e == "" {
				t.Fatalf("event %q passed on", e)
			}
		}
	})
}
