package ollamatest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Record is one HTTP request the server received and how it was answered.
type Record struct {
	Method string
	Path   string
	// Body is the request body as received.
	Body []byte
	// Status is the HTTP status answered; 0 while the request is still being
	// answered, or when the connection was dropped before a status was sent.
	Status int
	// Received and Answered are when the request arrived and when the
	// server finished with it (zero while it is being answered).
	Received, Answered time.Time
	// Chat is the decoded chat call, for chat paths whose body decoded.
	Chat *Request
	// Reply is what the engine answered the chat call with, when it got that far.
	Reply *Reply
	// Aborted is true when the server cut the connection mid-response (a Drop turn).
	Aborted bool
}

// Decode decodes the body into v, for assertions on non-chat requests.
func (r Record) Decode(v any) error { return json.Unmarshal(r.Body, v) }

// recordID points at one entry of Engine.records.
type recordID int

// begin records a request as it arrives.
func (e *Engine) begin(method, path string, body []byte) recordID {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.records = append(e.records, Record{Method: method, Path: path, Body: body, Received: time.Now()})
	e.open++
	e.notifyLocked()
	return recordID(len(e.records) - 1)
}

// finish records how a request was answered.
func (e *Engine) finish(id recordID, status int, aborted bool) {
	e.mu.Lock()
	e.records[id].Status = status
	e.records[id].Aborted = aborted
	e.records[id].Answered = time.Now()
	e.open--
	rec := e.records[id]
	e.notifyLocked()
	e.mu.Unlock()
	if e.cfg.OnAnswered != nil {
		e.cfg.OnAnswered(rec)
	}
}

// String sums the record up in one line for logs:
// "POST /api/chat 200 rule 1 12ms".
func (r Record) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %d", r.Method, r.Path, r.Status)
	if r.Reply != nil {
		b.WriteString(" " + r.Reply.Source)
		if r.Reply.Truncated {
			fmt.Fprintf(&b, " (prompt cut to %d tokens)", r.Reply.NumCtx)
		}
	}
	if r.Aborted {
		b.WriteString(" (connection dropped)")
	}
	if !r.Answered.IsZero() {
		fmt.Fprintf(&b, " %s", r.Answered.Sub(r.Received).Round(time.Millisecond))
	}
	return b.String()
}

// attachChat numbers a decoded chat call and attaches it to its record.
func (e *Engine) attachChat(id recordID, req *Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.chats++
	req.Seq = e.chats
	e.records[id].Chat = req
	e.notifyLocked()
}

// attachReply attaches the engine's reply to its record.
func (e *Engine) attachReply(id recordID, rep *Reply) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.records[id].Reply = rep
}

// Requests returns every request received, in arrival order. A client's
// call can return before the server completes the call's record, so call
// AwaitAnswered first when the test reads Status, Answered or Aborted.
func (e *Engine) Requests() []Record {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Record(nil), e.records...)
}

// RequestsTo returns the requests received on one path ("/api/pull"), in order.
func (e *Engine) RequestsTo(path string) []Record {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Record
	for _, r := range e.records {
		if r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// ChatRequests returns the decoded chat calls in the order they were
// numbered (Seq). Records are kept in the order connections arrived, and
// two calls arriving together may be decoded the other way round, so the
// list is sorted by Seq.
func (e *Engine) ChatRequests() []*Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []*Request
	for _, r := range e.records {
		if r.Chat != nil {
			out = append(out, r.Chat)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// LastChat returns the most recent chat call, or nil when there was none.
func (e *Engine) LastChat() *Request {
	reqs := e.ChatRequests()
	if len(reqs) == 0 {
		return nil
	}
	return reqs[len(reqs)-1]
}
