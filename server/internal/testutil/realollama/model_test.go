package realollama

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/ollama/ollama/fs/ggml"
)

func TestByteToRune(t *testing.T) {
	table := byteToRune()
	seen := map[rune]bool{}
	for b, r := range table {
		if seen[r] {
			t.Fatalf("byte %#x maps to %q, which another byte already has", b, r)
		}
		seen[r] = true
	}
	// Known entries of GPT-2's table.
	tests := []struct {
		b    byte
		want rune
	}{
		{'a', 'a'},
		{'!', '!'},
		{'~', '~'},
		{0x00, 0x100},
		{'\t', 0x109},
		{'\n', 0x10A},
		{' ', 0x120}, // Ġ
		{0x7F, 0x121},
		{0xA0, 0x142},
		{0xA1, 0xA1},
		{0xAD, 0x143},
		{0xFF, 0xFF},
	}
	for _, tt := range tests {
		if got := table[tt.b]; got != tt.want {
			t.Errorf("byteToRune()[%#x] = %U, want %U", tt.b, got, tt.want)
		}
	}
}

func TestVocabulary(t *testing.T) {
	tokens, types := vocabulary()
	if len(tokens) != vocabSize || len(types) != vocabSize {
		t.Fatalf("vocabulary has %d tokens and %d types, want %d", len(tokens), len(types), vocabSize)
	}
	for id, want := range map[int]string{idEndOfText: TokenEndOfText, idTurnStart: TokenTurnStart, idTurnEnd: TokenTurnEnd} {
		if tokens[id] != want || types[id] != tokenTypeControl {
			t.Errorf("token %d = %q type %d, want %q type %d", id, tokens[id], types[id], want, tokenTypeControl)
		}
	}
	for b := range 256 {
		if utf8.RuneCountInString(tokens[b]) != 1 || types[b] != tokenTypeNormal {
			t.Errorf("byte token %d = %q type %d, want one character of type %d", b, tokens[b], types[b], tokenTypeNormal)
		}
	}
}

func TestWriteModel(t *testing.T) {
	tests := []struct {
		name        string
		spec        ModelSpec
		wantContext uint64
	}{
		{"defaults", ModelSpec{}, DefaultContextLength},
		{"small window", ModelSpec{ContextLength: 1024, Seed: 7, EndChance: 0.1}, 1024},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tiny.gguf")
			if err := WriteModel(path, tt.spec); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if info, err := f.Stat(); err == nil {
				t.Logf("model file: %d bytes", info.Size())
			}
			m, err := ggml.Decode(f, -1)
			if err != nil {
				t.Fatalf("the ollama module cannot read the model back: %v", err)
			}
			kv := m.KV()
			if got := kv.Architecture(); got != "llama" {
				t.Errorf("architecture = %q, want llama", got)
			}
			if got := kv.ContextLength(); got != tt.wantContext {
				t.Errorf("context length = %d, want %d", got, tt.wantContext)
			}
			if got := kv.EmbeddingLength(); got != uint64(byteShape.width) {
				t.Errorf("embedding length = %d, want %d", got, byteShape.width)
			}
			if got := len(kv.Strings("tokenizer.ggml.tokens")); got != vocabSize {
				t.Errorf("%d tokens, want %d", got, vocabSize)
			}
			if got, want := len(m.Tensors().Items()), 3+9*byteShape.layers; got != want {
				t.Errorf("%d tensors, want %d", got, want)
			}
			for _, tensor := range m.Tensors().Items() {
				if tensor.Kind != uint32(ggml.TensorTypeF32) {
					t.Errorf("tensor %s has kind %d, want F32", tensor.Name, tensor.Kind)
				}
			}
		})
	}
}

func TestWriteModelIsDeterministic(t *testing.T) {
	dir := t.TempDir()
	var files [3][]byte
	for i, spec := range []ModelSpec{{}, {}, {Seed: 99}} {
		path := filepath.Join(dir, "m.gguf")
		if err := WriteModel(path, spec); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = data
	}
	if string(files[0]) != string(files[1]) {
		t.Error("two writes with the same spec differ")
	}
	if string(files[0]) == string(files[2]) {
		t.Error("a different seed wrote the same file")
	}
}

func TestWriteModelRejectsBadEndChance(t *testing.T) {
	for _, chance := range []float64{-0.1, 1, 2} {
		if err := WriteModel(filepath.Join(t.TempDir(), "m.gguf"), ModelSpec{EndChance: chance}); err == nil {
			t.Errorf("end chance %v was accepted", chance)
		}
	}
}

// TestEndChanceCalibration checks the weights against the chance the
// spec asks for, in the reduced model the calibration uses.
func TestEndChanceCalibration(t *testing.T) {
	for _, want := range []float64{0.01, DefaultEndChance, 0.2} {
		spec := ModelSpec{EndChance: want}.withDefaults()
		d := design{shape: byteShape, v: byteVocab()}
		ts := modelTensors(spec, d)
		embd := rowsOf(t, ts, "token_embd.weight", d.width)
		out := rowsOf(t, ts, "output.weight", d.width)
		if got := meanEndChance(d, embd, out); got < want*0.99 || got > want*1.01 {
			t.Errorf("end chance %v: the weights give %v", want, got)
		}
		// Bytes outside printable ASCII and the other special tokens
		// must be practically impossible.
		for _, tok := range []int{0, 0x7F, 0xC3, idEndOfText, idTurnStart} {
			if p := softmaxAt(logits(rmsNorm(embd['a']), out), tok); p > 1e-6 {
				t.Errorf("token %d has chance %v after 'a', want below 1e-6", tok, p)
			}
		}
	}
}

func rowsOf(t *testing.T, ts []*ggml.Tensor, name string, width int) [][]float32 {
	t.Helper()
	for _, tensor := range ts {
		if tensor.Name != name {
			continue
		}
		data := tensor.WriterTo.(f32)
		rows := make([][]float32, 0, len(data)/width)
		for i := 0; i < len(data); i += width {
			rows = append(rows, data[i:i+width])
		}
		return rows
	}
	t.Fatalf("no tensor %s", name)
	return nil
}
