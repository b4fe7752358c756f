package llm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// maxEventBytes bounds one server-sent event; a chunk of a streamed answer
// is a few hundred bytes, so anything near this is not a model server.
const maxEventBytes = 16 << 20

// readEvents reads a server-sent event stream (the OpenAI-compatible
// streaming format): "data:" lines make up an event, a blank line ends
// it, "data: [DONE]" ends the stream, and lines starting with ":" are
// comments (keep-alives). Each event's data goes to each. Any line counts
// as activity for the idle watchdog, so a server that sends keep-alives
// while it evaluates a long prompt is not taken for a stalled one.
func (o *conn) readEvents(ctx, actx context.Context, body io.Reader, wd *watchdog, each func(raw []byte) *failure) *failure {
	br := bufio.NewReaderSize(body, 64<<10)
	idle := &stallError{wait: o.idle}
	var data bytes.Buffer
	dispatch := func() (done bool, f *failure) {
		if data.Len() == 0 {
			return false, nil
		}
		payload := bytes.TrimSpace(data.Bytes())
		data.Reset()
		if len(payload) == 0 {
			return false, nil // blank data carries nothing to decode
		}
		if bytes.Equal(payload, []byte("[DONE]")) {
			return true, nil
		}
		return false, each(payload)
	}
	for {
		line, err := readLine(br)
		if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
			if errors.Is(err, io.EOF) {
				// A stream that ends without [DONE] still delivered
				// whatever complete event it sent; the caller checks
				// that the answer was finished.
				_, f := dispatch()
				return f
			}
			if errors.Is(err, errEventTooLarge) {
				return &failure{kind: KindStream, retry: retryOnce, msg: "the server sent an event larger than 16 MB", err: err}
			}
			return o.transportFailure(ctx, actx, err)
		}
		wd.arm(o.idle, idle)
		switch {
		case len(line) == 0:
			if done, f := dispatch(); f != nil || done {
				return f
			}
		case line[0] == ':':
			// a comment
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			if string(field) == "data" {
				if data.Len() > 0 {
					data.WriteByte('\n')
				}
				data.Write(value)
				if data.Len() > maxEventBytes {
					return &failure{kind: KindStream, retry: retryOnce, msg: fmt.Sprintf("the server sent an event larger than %d bytes", maxEventBytes)}
				}
			}
		}
		if err != nil { // io.EOF after a last line without a newline
			_, f := dispatch()
			return f
		}
	}
}

var errEventTooLarge = errors.New("event line too long")

// readLine returns one line without its line ending ("\n", "\r\n").
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > maxEventBytes {
			return nil, errEventTooLarge
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		out = bytes.TrimRight(out, "\r\n")
		return out, err
	}
}
