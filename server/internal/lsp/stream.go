package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
)

// maxFrame bounds one message body. A larger frame cannot be skipped
// safely, so it ends the connection.
const maxFrame = 256 << 20

// maxHeaderLine bounds one header line. Real ones are a few dozen bytes
// ("Content-Length: 1234"); a longer line is skipped without being kept
// and the frame it starts is rejected, so a peer that never ends a line
// costs a fixed buffer, not memory that grows with the line.
const maxHeaderLine = 4 << 10

// frameStream reads and writes LSP base-protocol frames (Content-Length
// header, blank line, JSON body). Unlike jsonrpc2's VSCodeObjectCodec, a
// frame that cannot be understood does not end the session: it is answered
// with a JSON-RPC error and reading goes on with the next frame. Only the
// end of input, a read error or an oversized frame stop it.
//
// Once closed it reads nothing more, not even frames already buffered:
// jsonrpc2 v0.2.0 closes its waiting calls' channels on close but leaves
// them registered, so an answer read after that would be sent on a closed
// channel (a panic on its read loop). Closing the stream, never the
// jsonrpc2.Conn from another goroutine, is therefore how the server hangs
// up: the read loop then ends, and closes the connection itself.
type frameStream struct {
	r      *bufio.Reader
	w      io.Writer
	c      io.Closer
	wmu    sync.Mutex
	closed atomic.Bool
	onBad  func(error) // told about every frame that was answered with an error
}

func newFrameStream(rwc io.ReadWriteCloser, onBad func(error)) *frameStream {
	return &frameStream{r: bufio.NewReaderSize(rwc, 64<<10), w: rwc, c: rwc, onBad: onBad}
}

// errBadFrame marks a frame whose header could not be read; the reader has
// moved past it.
var errBadFrame = errors.New("bad frame")

// ReadObject implements jsonrpc2.ObjectStream.
func (s *frameStream) ReadObject(v any) error {
	for {
		body, err := s.readFrame()
		if s.closed.Load() {
			// Hung up: what is left, buffered or half read, is dropped,
			// and the end is a plain end of input (not a protocol error).
			return io.EOF
		}
		if errors.Is(err, errBadFrame) {
			s.reject(nil, jsonrpc2.CodeParseError, err.Error())
			continue
		}
		if err != nil {
			return err
		}
		// Decode into a fresh value first so a half-decoded message never
		// leaks into v.
		fresh := reflect.New(reflect.TypeOf(v).Elem())
		if err := json.Unmarshal(body, fresh.Interface()); err != nil {
			code := int64(jsonrpc2.CodeInvalidRequest)
			if !json.Valid(body) {
				code = jsonrpc2.CodeParseError
			}
			s.reject(idOf(body), code, fmt.Sprintf("unable to read the message: %v", err))
			continue
		}
		reflect.ValueOf(v).Elem().Set(fresh.Elem())
		return nil
	}
}

// readFrame reads one header block and its body. Header lines may end in
// "\r\n" or "\n"; unknown headers are ignored; the Content-Length header
// is found even when garbage before it sits on the same line, so the
// stream resynchronises after a body that was longer than announced.
func (s *frameStream) readFrame() ([]byte, error) {
	length, seen := -1, false
	for {
		line, err := s.readLine()
		if errors.Is(err, errLongLine) {
			return nil, fmt.Errorf("%w: a header line is longer than %d bytes", errBadFrame, maxHeaderLine)
		}
		if err != nil {
			if err == io.EOF && strings.TrimSpace(line) != "" {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !seen {
				continue // a stray blank line between frames
			}
			break
		}
		seen = true
		i := strings.Index(asciiLower(line), "content-length:")
		if i < 0 {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(line[i+len("content-length:"):]))
		if err != nil || n < 0 {
			length = -2
			continue
		}
		length = n
	}
	switch {
	case length == -2:
		return nil, fmt.Errorf("%w: the Content-Length header is not a number", errBadFrame)
	case length < 0:
		return nil, fmt.Errorf("%w: no Content-Length header", errBadFrame)
	case length > maxFrame:
		return nil, fmt.Errorf("a %d-byte message is over the %d-byte limit", length, maxFrame)
	}
	// The body grows as it arrives: a header announcing 200 MB followed by
	// a few bytes costs a few bytes.
	var body bytes.Buffer
	body.Grow(min(length, 64<<10))
	if _, err := io.CopyN(&body, s.r, int64(length)); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("unable to read a %d-byte message: %w", length, err)
	}
	return body.Bytes(), nil
}

// errLongLine marks a header line past maxHeaderLine; it has been skipped
// up to its end.
var errLongLine = errors.New("header line too long")

// readLine reads one line, newline included, of at most maxHeaderLine
// bytes. A longer one is read on to its end in buffer-sized pieces that
// are dropped at once, and errLongLine returned.
func (s *frameStream) readLine() (string, error) {
	var line []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(line)+len(chunk) > maxHeaderLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = s.r.ReadSlice('\n')
			}
			if err != nil {
				return "", err
			}
			return "", errLongLine
		}
		line = append(line, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return string(line), err
		}
	}
}

// idOf digs the id out of a message that failed to decode, so the error
// reply can name the request it answers.
func idOf(body []byte) *jsonrpc2.ID {
	var probe struct {
		ID *jsonrpc2.ID `json:"id"`
	}
	if json.Unmarshal(body, &probe) != nil {
		return nil
	}
	return probe.ID
}

// reject answers a frame that could not be read.
func (s *frameStream) reject(id *jsonrpc2.ID, code int64, msg string) {
	if s.onBad != nil {
		s.onBad(errors.New(msg))
	}
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      *jsonrpc2.ID    `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", id, &jsonrpc2.Error{Code: code, Message: msg}}
	_ = s.WriteObject(resp)
}

// WriteObject implements jsonrpc2.ObjectStream: one frame, one write.
// After Close it writes nothing and says jsonrpc2.ErrClosed, as the
// connection itself does once it knows.
func (s *frameStream) WriteObject(obj any) error {
	if s.closed.Load() {
		return jsonrpc2.ErrClosed
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.Grow(len(body) + 32)
	fmt.Fprintf(&buf, "Content-Length: %d\r\n\r\n", len(body))
	buf.Write(body)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err = s.w.Write(buf.Bytes())
	return err
}

// Close implements jsonrpc2.ObjectStream. It is safe from any goroutine
// and more than once; a read it interrupts ends the read loop.
func (s *frameStream) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	return s.c.Close()
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid
// (strings.ToLower rewrites invalid UTF-8 and changes the length).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
