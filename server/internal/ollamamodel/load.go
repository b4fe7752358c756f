package ollamamodel

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/fs/ggml"
	"github.com/ollama/ollama/model/parsers"
	"github.com/ollama/ollama/template"
	"github.com/ollama/ollama/thinking"
	"github.com/ollama/ollama/tokenizer"
	"github.com/ollama/ollama/types/model"
)

// encoder is what counting needs of a tokenizer.
type encoder interface {
	Encode(s string, addSpecial bool) ([]int32, error)
}

// Model is a pulled model, loaded to count its chat prompts. It is safe
// for concurrent use.
type Model struct {
	files    *Files
	config   model.ConfigV2
	template *template.Template
	shape    templateShape
	system   string
	messages []api.Message
	spec     tokenizerSpec
	tok      encoder
	vocab    int
	// thinking is the server's thinking capability for the model: with
	// it, a request that does not say is rendered with thinking on.
	thinking bool
	// harmony: the server parses and renders the model as gpt-oss does.
	harmony bool
}

// Load reads the model's config, template, system prompt and messages
// and builds its tokenizer from the GGUF file's vocabulary (the file's
// tensors are not read). It returns ErrNotCovered for a tokenizer this
// package does not replicate.
func Load(f *Files) (*Model, error) {
	m := &Model{files: f, template: template.DefaultTemplate}
	if err := m.readLayers(); err != nil {
		return nil, err
	}
	if f.Template == "" {
		// The server's default: a legacy template, checked but not changed.
		shape, err := boundTemplate(m.template)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", f.Name, err)
		}
		m.shape = shape
	}
	kv, err := readKV(f.Model)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", f.Name, err)
	}
	if m.spec, err = specFor(kv, len(f.Projectors)); err != nil {
		return nil, fmt.Errorf("model %s: %w", f.Name, err)
	}
	v := &tokenizer.Vocabulary{
		Values: kv.Strings("tokenizer.ggml.tokens"),
		Types:  kv.Ints("tokenizer.ggml.token_type"),
		Scores: kv.Floats("tokenizer.ggml.scores"),
		Merges: kv.Strings("tokenizer.ggml.merges"),
		AddBOS: kv.Bool("tokenizer.ggml.add_bos_token", m.spec.addBOS),
		BOS:    []int32{int32(kv.Uint("tokenizer.ggml.bos_token_id"))},
		AddEOS: kv.Bool("tokenizer.ggml.add_eos_token", false),
		EOS:    append([]int32{int32(kv.Uint("tokenizer.ggml.eos_token_id"))}, kv.Ints("tokenizer.ggml.eos_token_ids")...),
	}
	if len(v.Values) == 0 || len(v.Types) != len(v.Values) {
		return nil, fmt.Errorf("model %s: the GGUF file has %d tokens and %d token types", f.Name, len(v.Values), len(v.Types))
	}
	m.vocab = len(v.Values)
	switch {
	case m.spec.kind == kindSPM:
		if len(v.Scores) != len(v.Values) {
			return nil, fmt.Errorf("model %s: a SentencePiece vocabulary without scores", f.Name)
		}
		m.tok = tokenizer.NewSentencePiece(v)
	case m.spec.runner == RunnerLlamaCpp:
		m.tok = newLlamaCppBPE(v, m.spec.pre, m.spec.ignoreMerges)
	default:
		bpe := tokenizer.NewBytePairEncoding(v, m.spec.pre...)
		m.tok = &bpe
	}
	m.capabilities()
	return m, nil
}

// readKV reads the GGUF file's metadata, every array included (the
// vocabulary), and no tensor data: the header is walked and bounded
// first (see checkHeader), then decoded by the module's reader, which
// seeks over the tensors without reading them.
func readKV(path string) (ggml.KV, error) {
	if _, err := checkHeader(path); err != nil {
		return nil, err
	}
	file, _, err := openRegular(path)
	if err != nil {
		return nil, fmt.Errorf("unable to open the model file: %w", err)
	}
	defer file.Close()
	return decodeKV(file, path)
}

// decodeKV decodes a checked header.
func decodeKV(rs io.ReadSeeker, path string) (ggml.KV, error) {
	g, err := ggml.Decode(rs, -1)
	if err != nil {
		return nil, fmt.Errorf("unable to read the model file %s: %w", path, err)
	}
	return g.KV(), nil
}

// readLayers reads the small layers the way the server's GetModel does.
func (m *Model) readLayers() error {
	f := m.files
	if f.Config != "" {
		if err := readJSON(f.Config, &m.config); err != nil {
			return fmt.Errorf("model %s: %w", f.Name, err)
		}
	}
	if f.Template != "" {
		data, err := readSmall(f.Template)
		if err != nil {
			return fmt.Errorf("model %s: unable to read its template: %w", f.Name, err)
		}
		if m.template, err = template.Parse(string(data)); err != nil {
			return fmt.Errorf("model %s: its template does not parse: %w", f.Name, err)
		}
		if m.shape, err = boundTemplate(m.template); err != nil {
			return fmt.Errorf("model %s: %w", f.Name, err)
		}
	}
	if f.System != "" {
		data, err := readSmall(f.System)
		if err != nil {
			return fmt.Errorf("model %s: unable to read its system prompt: %w", f.Name, err)
		}
		m.system = string(data)
	}
	if f.Messages != "" {
		if err := readJSON(f.Messages, &m.messages); err != nil {
			return fmt.Errorf("model %s: %w", f.Name, err)
		}
	}
	return nil
}

func readJSON(path string, v any) error {
	data, err := readSmall(path)
	if err != nil {
		return fmt.Errorf("unable to read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("unable to read %s: %w", path, err)
	}
	return nil
}

// capabilities works out, as the server's Model.Capabilities does, whether
// the model thinks (think tags in its template, the gpt-oss family, or a
// built-in parser that thinks) and whether it is rendered as harmony.
func (m *Model) capabilities() {
	parser := parsers.ParserForName(m.config.Parser)
	open, closing := thinking.InferTags(m.template.Template)
	gptoss := slices.Contains([]string{"gptoss", "gpt-oss"}, m.config.ModelFamily)
	m.thinking = (open != "" && closing != "") || gptoss || (parser != nil && parser.HasThinkingSupport())
	m.harmony = gptoss && m.template.Contains("<|start|>") && m.template.Contains("<|end|>")
}

// Digest is the manifest digest the model was loaded from.
func (m *Model) Digest() string { return m.files.Digest }

// Name is the model's full name.
func (m *Model) Name() string { return m.files.Name }

// Runner names the server's runner that tokenizes the model's prompts.
func (m *Model) Runner() string { return m.spec.runner }

// Tokenizer names the tokenizer for people: "BPE qwen2, 151669 tokens".
func (m *Model) Tokenizer() string {
	if m.spec.kind == kindSPM {
		return fmt.Sprintf("SentencePiece, %d tokens", m.vocab)
	}
	pre := m.spec.preName
	if pre == "" {
		pre = "gpt2"
	}
	return fmt.Sprintf("BPE %s, %d tokens", pre, m.vocab)
}

// maxLayer bounds a small layer (template, system prompt, messages,
// config): real ones are kilobytes.
const maxLayer = 4 << 20

// readSmall reads a small layer whole, refusing one over maxLayer and
// anything but a regular file.
func readSmall(path string) ([]byte, error) {
	return readRegular(path, maxLayer)
}
