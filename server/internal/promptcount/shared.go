package promptcount

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/icm-tool/icm/server/internal/llm"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// promptTokenizer is what a counting client offers when it can give a
// prompt's own tokens (an Ollama client with the model's files here).
type promptTokenizer interface {
	PromptTokens(ctx context.Context, req llm.ChatRequest) ([]int32, bool)
}

// share fills each item's Shared and Own: the longest start its first
// call has in common with an earlier item's, in tokens where the client
// gives them, else in characters scaled to the item's count.
func (c *Counter) share(ctx context.Context, reqs []llm.ChatRequest, items []Item) {
	if tk, ok := c.Client.(promptTokenizer); ok && items[0].Count.Method == tokens.Exact {
		seqs := make([][]int32, len(reqs))
		exact := true
		for i, r := range reqs {
			if seqs[i], exact = tk.PromptTokens(ctx, r); !exact {
				break
			}
		}
		if exact {
			for i := range items {
				shared := 0
				for j := range i {
					shared = max(shared, commonPrefix(seqs[j], seqs[i]))
				}
				items[i].Shared, items[i].Own = shared, len(seqs[i])-shared
			}
			return
		}
	}
	texts := make([]string, len(reqs))
	for i, r := range reqs {
		texts[i] = promptText(r)
	}
	for i := range items {
		shared := 0
		for j := range i {
			shared = max(shared, commonTextPrefix(texts[j], texts[i]))
		}
		n := items[i].Count.Tokens
		s := 0
		if len(texts[i]) > 0 {
			s = int(float64(n) * float64(shared) / float64(len(texts[i])))
		}
		items[i].Shared, items[i].Own = s, n-s
	}
}

// promptText is a request's text in the order chat templates put it:
// the tool definitions, then each message.
func promptText(r llm.ChatRequest) string {
	var b strings.Builder
	if len(r.Tools) > 0 {
		data, _ := json.Marshal(r.Tools)
		b.Write(data)
	}
	for _, m := range r.Messages {
		b.WriteString("\x00" + m.Role + "\x00" + m.Content)
	}
	return b.String()
}

func commonPrefix(a, b []int32) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func commonTextPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
