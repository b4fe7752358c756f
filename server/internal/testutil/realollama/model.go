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

// Shape of the tiny model. Small enough to answer in milliseconds on one
// core, big enough to be a real llama graph (attention, rope, SwiGLU).
const (
	embeddingWidth   = 64
	layerCount       = 2
	headCount        = 4
	headWidth        = embeddingWidth / headCount
	feedForwardWidth = 128
	rmsEpsilon       = 1e-5
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
	return s
}

// WriteModel writes the tiny model as a GGUF file at path, using the Ollama
// module's own GGUF writer so the file is exactly what the server expects.
func WriteModel(path string, spec ModelSpec) error {
	spec = spec.withDefaults()
	if spec.EndChance <= 0 || spec.EndChance >= 1 {
		return fmt.Errorf("unable to write model %s: end chance %v is not between 0 and 1", path, spec.EndChance)
	}
	tensors := modelTensors(spec)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("unable to create model file %s: %w", path, err)
	}
	if err := ggml.WriteGGUF(f, modelKV(spec), tensors); err != nil {
		f.Close()
		return fmt.Errorf("unable to write model file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("unable to close model file %s: %w", path, err)
	}
	return nil
}

// modelKV is the GGUF metadata: a llama model with a byte-level gpt2
// tokenizer that adds no BOS token, so a prompt's token count is its byte
// count plus the template's special tokens.
func modelKV(spec ModelSpec) ggml.KV {
	tokens, types := vocabulary()
	return ggml.KV{
		"general.architecture":                   "llama",
		"general.name":                           "icm-tiny",
		"general.file_type":                      uint32(0), // all F32
		"llama.context_length":                   spec.ContextLength,
		"llama.embedding_length":                 uint32(embeddingWidth),
		"llama.block_count":                      uint32(layerCount),
		"llama.feed_forward_length":              uint32(feedForwardWidth),
		"llama.attention.head_count":             uint32(headCount),
		"llama.attention.head_count_kv":          uint32(headCount),
		"llama.attention.layer_norm_rms_epsilon": float32(rmsEpsilon),
		"llama.rope.dimension_count":             uint32(headWidth),
		"llama.rope.freq_base":                   float32(10000),
		"llama.vocab_size":                       uint32(vocabSize),
		"tokenizer.ggml.model":                   "gpt2",
		"tokenizer.ggml.pre":                     "default",
		"tokenizer.ggml.tokens":                  tokens,
		"tokenizer.ggml.token_type":              types,
		"tokenizer.ggml.merges":                  []string{},
		"tokenizer.ggml.bos_token_id":            uint32(idEndOfText),
		"tokenizer.ggml.eos_token_id":            uint32(idTurnEnd),
		"tokenizer.ggml.padding_token_id":        uint32(idEndOfText),
		"tokenizer.ggml.add_bos_token":           false,
		"tokenizer.ggml.add_eos_token":           false,
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
func modelTensors(spec ModelSpec) []*ggml.Tensor {
	rng := rand.New(rand.NewPCG(spec.Seed, spec.Seed^0x9e3779b97f4a7c15))
	embd := embeddings(rng)
	out := outputRows(rng, embd, spec.EndChance)

	ts := []*ggml.Tensor{
		tensor("token_embd.weight", flatten(embd), embeddingWidth, vocabSize),
		tensor("output_norm.weight", ones(embeddingWidth), embeddingWidth),
		tensor("output.weight", flatten(out), embeddingWidth, vocabSize),
	}
	for i := range layerCount {
		p := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			tensor(p+"attn_norm.weight", ones(embeddingWidth), embeddingWidth),
			tensor(p+"attn_q.weight", normal(rng, embeddingWidth*embeddingWidth, inputStd), embeddingWidth, embeddingWidth),
			tensor(p+"attn_k.weight", normal(rng, embeddingWidth*embeddingWidth, inputStd), embeddingWidth, embeddingWidth),
			tensor(p+"attn_v.weight", normal(rng, embeddingWidth*embeddingWidth, inputStd), embeddingWidth, embeddingWidth),
			tensor(p+"attn_output.weight", normal(rng, embeddingWidth*embeddingWidth, residualStd), embeddingWidth, embeddingWidth),
			tensor(p+"ffn_norm.weight", ones(embeddingWidth), embeddingWidth),
			tensor(p+"ffn_gate.weight", normal(rng, embeddingWidth*feedForwardWidth, inputStd), embeddingWidth, feedForwardWidth),
			tensor(p+"ffn_up.weight", normal(rng, embeddingWidth*feedForwardWidth, inputStd), embeddingWidth, feedForwardWidth),
			tensor(p+"ffn_down.weight", normal(rng, feedForwardWidth*embeddingWidth, residualStd), feedForwardWidth, embeddingWidth),
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

func flatten(rows [][]float32) f32 {
	v := make(f32, 0, len(rows)*embeddingWidth)
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
