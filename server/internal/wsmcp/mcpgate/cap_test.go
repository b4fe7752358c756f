package mcpgate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// request is a JSON-RPC request with id exactly size bytes long.
func request(t *testing.T, id string, size int) string {
	t.Helper()
	head := `{"jsonrpc":"2.0","id":` + id + `,"method":"m","params":{"x":"`
	pad := size - len(head) - len(`"}}`)
	if pad < 0 {
		t.Fatalf("%d bytes cannot hold a request", size)
	}
	return head + strings.Repeat("a", pad) + `"}}`
}

// answered decodes the error frames written to out, one a line.
func answered(t *testing.T, out string) []map[string]any {
	t.Helper()
	var frames []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var f map[string]any
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("not a JSON-RPC frame: %q", sc.Text())
		}
		frames = append(frames, f)
	}
	return frames
}

// TestStdioCapsEachLine: lines of at most max bytes (line break not
// counted, "\r\n" or "\n") reach the server whole and in order; a line
// over max, even the last one without a line break, reaches it not at
// all and is answered with the cap's error to its id; the server's own
// writes pass through.
func TestStdioCapsEachLine(t *testing.T) {
	const max = 200
	var in strings.Builder
	first := request(t, "1", 80)
	exact := request(t, `"two"`, max)
	crlf := request(t, "3", max-1)
	in.WriteString(first + "\n")
	in.WriteString(request(t, "10", max+1) + "\n")
	in.WriteString(exact + "\n")
	in.WriteString(request(t, `"eleven"`, 5*max) + "\n")
	in.WriteString(crlf + "\r\n")
	in.WriteString(request(t, "12", max+1)) // the last, unended
	var out bytes.Buffer
	told := 0
	r, w := Stdio(strings.NewReader(in.String()), &out, max, func() { told++ })
	if _, err := w.Write([]byte(`{"jsonrpc":"2.0","id":0,"result":{}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	// Read in small pieces, as a server's buffer may.
	got, err := io.ReadAll(bufio.NewReaderSize(r, 16))
	if err != nil {
		t.Fatal(err)
	}
	if want := first + "\n" + exact + "\n" + crlf + "\r\n"; string(got) != want {
		t.Errorf("the server read\n%q\nwant\n%q", got, want)
	}
	frames := answered(t, out.String())
	if len(frames) != 4 || told != 3 {
		t.Fatalf("%d frames written (told %d times), want the server's own and 3 refusals:\n%s", len(frames), told, out.String())
	}
	for i, id := range []any{float64(10), "eleven", float64(12)} {
		f := frames[i+1]
		e, _ := f["error"].(map[string]any)
		if f["id"] != id || e["code"] != float64(-32600) || !strings.Contains(e["message"].(string), "200 bytes") {
			t.Errorf("refusal %d: %v, want one to id %v", i+1, f, id)
		}
	}
}

// TestTheIDOfARequestTooLarge: the id is taken from the start of the
// request when it is whole there and a string or a number; otherwise the
// answer goes to null.
func TestTheIDOfARequestTooLarge(t *testing.T) {
	for _, tc := range []struct{ head, want string }{
		{`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"aaa`, `42`},
		{`{"id":"a-1","params":`, `"a-1"`},
		{`{"jsonrpc":"2.0","method":"m","params":{"a":[1,2,{"id":5}]},"id":-3,"x":"`, `-3`},
		{`{"jsonrpc":"2.0","method":"m","params":{"x":"aaaa`, `null`},
		{`{"id":{"nested":1},"params":"`, `null`},
		{`{"id":null,"params":"`, `null`},
		{`[{"id":1}`, `null`},
		{`not json`, `null`},
		{``, `null`},
		{`{"params":"` + strings.Repeat("a", idWindow) + `","id":9}`, `null`},
	} {
		if got := string(requestID([]byte(tc.head))); got != tc.want {
			t.Errorf("requestID(%.60q) = %s, want %s", tc.head, got, tc.want)
		}
	}
}

// TestLimitBody: a POST body of at most max bytes reaches the server
// whole; one over it, or said to be, gets 413 with the cap's error to
// its id and never reaches the server. Other methods pass.
func TestLimitBody(t *testing.T) {
	const max = 300
	var got []string
	h := LimitBody(max, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, string(b))
	}))
	send := func(body string, length int64) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.ContentLength = length
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	exact := request(t, "1", max)
	if rec := send(exact, int64(len(exact))); rec.Code != http.StatusOK || len(got) != 1 || got[0] != exact {
		t.Fatalf("a body of exactly max: %d, the server read %d bodies", rec.Code, len(got))
	}
	over := request(t, "2", max+1)
	for _, tc := range []struct {
		name   string
		length int64
	}{{"its length told", int64(len(over))}, {"its length untold", -1}, {"said to be larger", 1 << 30}} {
		rec := send(over, tc.length)
		var f map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &f); err != nil || rec.Code != http.StatusRequestEntityTooLarge || f["id"] != float64(2) {
			t.Errorf("one byte over, %s: %d %s", tc.name, rec.Code, rec.Body.String())
		}
	}
	if len(got) != 1 {
		t.Errorf("over-size bodies reached the server: %d bodies", len(got))
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/mcp", nil))
	if len(got) != 2 {
		t.Error("a GET did not pass")
	}
}
