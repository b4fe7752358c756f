package realollama

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ollama/ollama/fs/ggml"
)

func TestQwen3Vocab(t *testing.T) {
	v, err := loadQwen3Vocab(NeedQwen3(t))
	if err != nil {
		t.Fatal(err)
	}
	// Qwen3: 151,643 BPE tokens, 26 added ones, 151,387 merges.
	if v.size() != 151669 || len(v.merges) != 151387 {
		t.Errorf("%d tokens and %d merges, want 151669 and 151387", v.size(), len(v.merges))
	}
	for id, want := range map[int]struct {
		tok string
		typ int32
	}{
		151643: {TokenEndOfText, tokenTypeControl},
		151644: {TokenTurnStart, tokenTypeControl},
		151645: {TokenTurnEnd, tokenTypeControl},
		151657: {"<tool_call>", tokenTypeUserDefined},
		151667: {"<think>", tokenTypeUserDefined},
		0:      {"!", tokenTypeNormal},
	} {
		if v.tokens[id] != want.tok || v.types[id] != want.typ {
			t.Errorf("token %d = %q type %d, want %q type %d", id, v.tokens[id], v.types[id], want.tok, want.typ)
		}
	}
	if v.endOfText != 151643 || v.turnEnd != 151645 {
		t.Errorf("end of text %d, turn end %d", v.endOfText, v.turnEnd)
	}
	if v.merges[0] != "Ġ Ġ" {
		t.Errorf("first merge %q, want %q", v.merges[0], "Ġ Ġ")
	}
	writable := 0
	for id, w := range v.writable {
		if w {
			writable++
			if v.types[id] != tokenTypeNormal {
				t.Errorf("special token %q is writable", v.tokens[id])
			}
		}
	}
	if !v.writable[v.idOf(t, "Ġthe")] || v.writable[v.idOf(t, "Ċ")] != true || v.writable[v.idOf(t, "Ã©")] {
		t.Error("writable: want \" the\" and newline, not é's bytes")
	}
	t.Logf("%d of %d tokens are printable ASCII", writable, v.size())
}

func (v *vocab) idOf(t *testing.T, tok string) int {
	t.Helper()
	for id, s := range v.tokens {
		if s == tok {
			return id
		}
	}
	t.Fatalf("no token %q", tok)
	return -1
}

func TestQwen3EndChanceCalibration(t *testing.T) {
	spec := ModelSpec{Vocabulary: VocabQwen3}.withDefaults()
	NeedQwen3(t)
	d, err := designFor(spec)
	if err != nil {
		t.Fatal(err)
	}
	ts := modelTensors(spec, d)
	embd := rowsOf(t, ts, "token_embd.weight", d.width)
	out := rowsOf(t, ts, "output.weight", d.width)
	if got := meanEndChance(d, embd, out); got < spec.EndChance*0.99 || got > spec.EndChance*1.01 {
		t.Errorf("the weights give end chance %v, want %v", got, spec.EndChance)
	}
	if p := softmaxAt(logits(rmsNorm(embd[d.v.idOf(t, "Ġthe")]), out), d.v.idOf(t, "Ã©")); p > 1e-7 {
		t.Errorf("a non-ASCII token has chance %v, want below 1e-7", p)
	}
}

func TestQwen3ModelFile(t *testing.T) {
	NeedQwen3(t)
	spec := ModelSpec{Vocabulary: VocabQwen3}.withDefaults()
	cache := t.TempDir()
	path, err := cachedModel(spec, cache)
	if err != nil {
		t.Fatal(err)
	}
	again, err := cachedModel(spec, cache)
	if err != nil || again != path {
		t.Fatalf("second lookup: %s, %v; want the cached %s", again, err, path)
	}
	if matches, _ := filepath.Glob(filepath.Join(cache, "realollama-models", ".writing-*")); len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	t.Logf("model file: %d bytes", info.Size())
	if info.Size() > 30<<20 {
		t.Errorf("model file is %d bytes, want under 30 MB", info.Size())
	}
	m, err := ggml.Decode(f, -1)
	if err != nil {
		t.Fatalf("the ollama module cannot read the model back: %v", err)
	}
	kv := m.KV()
	if kv.String("tokenizer.ggml.pre") != "qwen2" || kv.String("tokenizer.ggml.model") != "gpt2" ||
		len(kv.Strings("tokenizer.ggml.tokens")) != 151669 || len(kv.Strings("tokenizer.ggml.merges")) != 151387 {
		t.Errorf("tokenizer: model %q pre %q, %d tokens, %d merges", kv.String("tokenizer.ggml.model"), kv.String("tokenizer.ggml.pre"),
			len(kv.Strings("tokenizer.ggml.tokens")), len(kv.Strings("tokenizer.ggml.merges")))
	}
	if kv.EmbeddingLength() != 16 {
		t.Errorf("embedding length %d, want 16", kv.EmbeddingLength())
	}
}
