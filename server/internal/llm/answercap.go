package llm

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/icm-tool/icm/server/internal/config"
	"github.com/icm-tool/icm/server/internal/human"
)

// DefaultStreamDeadline bounds one attempt at an answer from the request
// to its last byte, however steadily data keeps coming: a model that
// talks forever is cut off here if its answer cap has not already ended
// it. Generous, because a CPU can take half an hour over a long answer.
const DefaultStreamDeadline = 30 * time.Minute

// answerCap bounds what one answer may bring, from the room kept for it
// (max_output, sent as num_predict or max_tokens). A server past it is not
// following the request (a loop, a broken runner, a hostile peer), and the
// call ends there as incomplete: nothing past the cap is read, and an
// incomplete answer is never saved as a stage's output.
type answerCap struct {
	// tokens bounds the chunks of a stream (a model server sends about
	// one per token) and the output token count a server reports.
	tokens int
	// bytes bounds the text kept (content and thinking).
	bytes int
	// wire bounds the bytes read from the answer's body, framing included.
	wire int64
}

// Per-token allowances of the cap: some slack for servers that count
// differently, and bytes far above what any token holds (most are a
// handful of bytes) so an honest answer never meets them.
const (
	capSlackTokens   = 64
	capBytesPerToken = 32
	capWirePerToken  = 1024 // a streamed chunk's JSON around its token
	capBaseBytes     = 64 << 10
	capBaseWire      = 1 << 20
)

func capFor(maxOut int) answerCap {
	// Settings are validated to MaxWindow; clamping here too keeps the
	// arithmetic below from overflowing whatever reaches it.
	maxOut = min(max(maxOut, 0), config.MaxWindow)
	tokens := maxOut + maxOut/4 + capSlackTokens
	bytes := tokens*capBytesPerToken + capBaseBytes
	return answerCap{tokens: tokens, bytes: bytes, wire: int64(bytes)*4 + int64(tokens)*capWirePerToken + capBaseWire}
}

// over reports whether an answer of chunks chunks, text bytes of text and
// a reported count of tokens is past the cap.
func (c answerCap) over(chunks, text, tokens int) bool {
	return chunks > c.tokens || text > c.bytes || tokens > c.tokens
}

// failure is how an answer past the cap ends the exchange: never retried
// (the server would do it again), and turned into an incomplete answer
// by the caller rather than an error.
func (c answerCap) failure() *failure {
	return &failure{kind: KindStream, retry: retryNever, capped: true,
		msg:  fmt.Sprintf("the server sent more than the answer may hold (%d tokens, %s of text)", c.tokens, sizeText(c.bytes)),
		hint: "the model did not stop at max_output; the answer is cut there and not saved"}
}

func sizeText(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", n>>10)
}

// errAnswerCap is what capReader returns once its budget is spent.
var errAnswerCap = errors.New("the answer went past its cap")

// capReader reads at most left bytes from r, then fails with errAnswerCap:
// a body that never ends costs the cap, not memory that grows with it.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errAnswerCap
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// bounds limit one exchange: the bytes its answer's body may hold (0: no
// limit) and the time from the request to the end of the answer (0: none
// but the caller's context).
type bounds struct {
	bytes int64
	total time.Duration
}

// deadlineError is the cause set on a request that ran past its total
// deadline while data was still coming.
type deadlineError struct{ total time.Duration }

func (e *deadlineError) Error() string {
	return fmt.Sprintf("the answer took longer than %s, the most one answer may take", human.Duration(e.total))
}

// truncateText cuts s to at most n bytes, at a character boundary.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
