package ollamamodel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/testutil/realollama"
)

// countingFile counts the bytes read through it (seeks read nothing).
type countingFile struct {
	*os.File
	read int64
}

func (c *countingFile) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	c.read += int64(n)
	return n, err
}

// TestReadingTheVocabularyReadsNoTensorData: of the Qwen3 model's file,
// only the header is read (the bounded walk and the decode), never the
// tensors that follow it.
func TestReadingTheVocabularyReadsNoTensorData(t *testing.T) {
	realollama.NeedQwen3(t)
	dir := t.TempDir()
	if err := realollama.LayOut(dir, "q", realollama.ModelSpec{Vocabulary: realollama.VocabQwen3}, ""); err != nil {
		t.Fatal(err)
	}
	files, err := Find([]string{dir}, "q")
	if err != nil {
		t.Fatal(err)
	}
	header, err := checkHeader(files.Model)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(files.Model)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, _ := f.Stat()
	cf := &countingFile{File: f}
	kv, err := decodeKV(cf, files.Model)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(kv.Strings("tokenizer.ggml.tokens")); n != 151669 {
		t.Errorf("%d tokens", n)
	}
	t.Logf("file %d bytes, header %d, decode read %d", info.Size(), header, cf.read)
	// The decoder reads through a 32 KB buffer: at most that much past
	// the header, and the tensors are most of the file.
	if cf.read > header+64<<10 || info.Size()-header < 8<<20 {
		t.Errorf("the decode read %d bytes of a %d-byte file whose header is %d bytes", cf.read, info.Size(), header)
	}
}

// gguf builds a version-3 little-endian header by hand.
type gguf struct{ bytes.Buffer }

func newGGUF(tensors, kvs uint64) *gguf {
	g := &gguf{}
	g.WriteString("GGUF")
	g.u32(3)
	g.u64(tensors)
	g.u64(kvs)
	return g
}
func (g *gguf) u32(v uint32) { _ = binary.Write(g, binary.LittleEndian, v) }
func (g *gguf) u64(v uint64) { _ = binary.Write(g, binary.LittleEndian, v) }
func (g *gguf) str(s string) { g.u64(uint64(len(s))); g.WriteString(s) }

// TestHostileHeadersAreRefused: counts that would make the module's
// reader allocate without bound are refused before it runs, with an
// error saying so, and nothing panics.
func TestHostileHeadersAreRefused(t *testing.T) {
	cases := map[string]func() []byte{
		"huge array": func() []byte {
			g := newGGUF(0, 1)
			g.str("tokenizer.ggml.tokens")
			g.u32(ggufArray)
			g.u32(ggufString)
			g.u64(1 << 40)
			return g.Bytes()
		},
		"array longer than the file": func() []byte {
			g := newGGUF(0, 1)
			g.str("tokenizer.ggml.tokens")
			g.u32(ggufArray)
			g.u32(ggufString)
			g.u64(1 << 20)
			g.str("a")
			return g.Bytes()
		},
		"huge string": func() []byte {
			g := newGGUF(0, 1)
			g.str("tokenizer.chat_template")
			g.u32(ggufString)
			g.u64(1 << 62)
			return g.Bytes()
		},
		"string past the end": func() []byte {
			g := newGGUF(0, 1)
			g.str("general.name")
			g.u32(ggufString)
			g.u64(1000)
			g.WriteString("short")
			return g.Bytes()
		},
		"many entries": func() []byte { return newGGUF(0, 1<<40).Bytes() },
		"many tensors": func() []byte { return newGGUF(1<<40, 0).Bytes() },
		"array of arrays": func() []byte {
			g := newGGUF(0, 1)
			g.str("x")
			g.u32(ggufArray)
			g.u32(ggufArray)
			g.u64(1)
			return g.Bytes()
		},
		"unknown type": func() []byte { g := newGGUF(0, 1); g.str("x"); g.u32(99); return g.Bytes() },
		"tensor dims": func() []byte {
			g := newGGUF(1, 0)
			g.str("token_embd.weight")
			g.u32(1 << 30)
			return g.Bytes()
		},
		"version 1": func() []byte { g := &gguf{}; g.WriteString("GGUF"); g.u32(1); return g.Bytes() },
		"not gguf":  func() []byte { return []byte("PK\x03\x04 a zip file") },
		"truncated": func() []byte { return newGGUF(0, 1).Bytes()[:10] },
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.gguf")
			if err := os.WriteFile(path, build(), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readKV(path)
			if !errors.Is(err, errHeader) {
				t.Errorf("readKV: %v, want the header refused", err)
			}
		})
	}
}

// FuzzCheckHeader: whatever the header says, the walk ends with an
// answer, and a header it accepts is decoded by the module's reader
// without a panic.
func FuzzCheckHeader(f *testing.F) {
	dir := f.TempDir()
	small := filepath.Join(dir, "tiny.gguf")
	if err := realollama.WriteModel(small, realollama.ModelSpec{}); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(small)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:min(len(data), 2<<10)]) // the header's start: its first entries
	g := newGGUF(0, 1)
	g.str("tokenizer.ggml.tokens")
	g.u32(ggufArray)
	g.u32(ggufString)
	g.u64(2)
	g.str("a")
	g.str("b")
	f.Add(g.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := walkHeader(bytes.NewReader(data), int64(len(data))); err != nil {
			return
		}
		_, _ = decodeKV(bytes.NewReader(data), "fuzz")
	})
}
