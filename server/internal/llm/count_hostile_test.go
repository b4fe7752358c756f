package llm

import (
	"context"
	"encoding/binary"
	"io"
	"os"
	"testing"

	"github.com/icm-tool/icm/server/internal/ollamamodel"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/realollama"
	"github.com/icm-tool/icm/server/internal/tokens"
)

// TestSparseModelFileIsNotCountedExactly: a pulled model whose GGUF file
// claims 4M empty tokens over a hole (a few kilobytes on disk) gets an
// estimate, never a count called exact. Failed before: its vocabulary
// was loaded (hundreds of megabytes for nothing) and its counts said
// "exact".
func TestSparseModelFileIsNotCountedExactly(t *testing.T) {
	dir := t.TempDir()
	if err := realollama.LayOut(dir, "tiny", realollama.ModelSpec{}, ""); err != nil {
		t.Fatal(err)
	}
	f, err := ollamamodel.Find([]string{dir}, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	writeEmptyVocabulary(t, f.Model, 1<<22)
	srv := ollamatest.New(t, ollamatest.Config{Models: []ollamatest.Model{{Name: "tiny", Digest: f.Digest, ContextLength: 8192}}})
	o := newTestClient(t, srv.URL(), newFakeTime(), WithModelFiles(ollamamodel.NewCache([]string{dir})))
	c, err := o.CountPrompt(context.Background(), tokenizeCall())
	if err != nil {
		t.Fatal(err)
	}
	if c.Method == tokens.Exact {
		t.Errorf("count %+v is called exact", c)
	}
}

// writeEmptyVocabulary replaces path with a GGUF file whose vocabulary
// is n empty tokens, written as holes.
func writeEmptyVocabulary(t *testing.T, path string, n uint64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	put := func(v any) { _ = binary.Write(f, binary.LittleEndian, v) }
	str := func(s string) { put(uint64(len(s))); _, _ = f.WriteString(s) }
	_, _ = f.WriteString("GGUF")
	put(uint32(3))
	put(uint64(0))
	put(uint64(5))
	for _, kv := range [][2]string{{"general.architecture", "llama"}, {"tokenizer.ggml.model", "gpt2"}, {"tokenizer.ggml.pre", "default"}} {
		str(kv[0])
		put(uint32(8)) // a string
		str(kv[1])
	}
	str("tokenizer.ggml.tokens")
	put(uint32(9)) // an array
	put(uint32(8)) // of strings
	put(n)
	_, _ = f.Seek(int64(n)*8, io.SeekCurrent)
	str("tokenizer.ggml.token_type")
	put(uint32(9))
	put(uint32(5)) // of int32
	put(n)
	end, _ := f.Seek(int64(n)*4, io.SeekCurrent)
	if err := f.Truncate(end); err != nil {
		t.Fatal(err)
	}
}
