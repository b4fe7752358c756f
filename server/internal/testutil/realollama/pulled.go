package realollama

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/types/model"
)

// Layer media types of a manifest, as `ollama create` writes them.
const (
	mediaModel    = "application/vnd.ollama.image.model"
	mediaTemplate = "application/vnd.ollama.image.template"
	mediaConfig   = "application/vnd.docker.container.image.v1+json"
)

// LayOut writes the tiny model into the Ollama models folder dir under
// name, the way a pull or a create leaves a model there (a manifest, the
// GGUF file, the template and a config, each a blob named by its
// digest), without a server: what a local Ollama's models folder looks
// like to icm's exact counting, for tests and benchmarks. The Qwen3
// model's GGUF is generated once into the cache and hard-linked when it
// can be (copied otherwise); cacheDir "" means devcache.Dir().
func LayOut(dir, name string, spec ModelSpec, cacheDir string) error {
	spec = spec.withDefaults()
	n := model.ParseName(name)
	if !n.IsFullyQualified() {
		return fmt.Errorf("unable to lay out model %q: not a model name Ollama accepts", name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("unable to lay out model %s in %s: %w", name, dir, err)
	}
	tmp, err := os.MkdirTemp(dir, ".layout-")
	if err != nil {
		return fmt.Errorf("unable to lay out model %s in %s: %w", name, dir, err)
	}
	defer os.RemoveAll(tmp)
	gguf := filepath.Join(tmp, "model.gguf")
	if spec.Vocabulary == VocabBytes {
		if err := WriteModel(gguf, spec); err != nil {
			return err
		}
	} else if gguf, err = cachedModel(spec, cacheDir); err != nil {
		return err
	}
	tmpl, err := templateOf(modelfileFor(spec))
	if err != nil {
		return err
	}
	modelLayer, err := blobFile(dir, gguf, mediaModel)
	if err != nil {
		return err
	}
	tmplLayer, err := blobData(dir, []byte(tmpl), mediaTemplate)
	if err != nil {
		return err
	}
	config, err := blobData(dir, []byte(`{"model_format":"gguf","model_family":"llama","model_families":["llama"],"file_type":"F32"}`), mediaConfig)
	if err != nil {
		return err
	}
	manifest, _ := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.docker.distribution.manifest.v2+json",
		"config":        config,
		"layers":        []any{modelLayer, tmplLayer},
	})
	path := filepath.Join(dir, "manifests", n.Filepath())
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("unable to lay out model %s: %w", name, err)
	}
	if err := os.WriteFile(path, manifest, 0o644); err != nil {
		return fmt.Errorf("unable to lay out model %s: %w", name, err)
	}
	return nil
}

// templateOf reads the TEMPLATE """...""" of a Modelfile.
func templateOf(modelfile []byte) (string, error) {
	const open = `TEMPLATE """`
	i := bytes.Index(modelfile, []byte(open))
	if i < 0 {
		return "", fmt.Errorf("the Modelfile has no TEMPLATE")
	}
	rest := modelfile[i+len(open):]
	j := bytes.Index(rest, []byte(`"""`))
	if j < 0 {
		return "", fmt.Errorf("the Modelfile's TEMPLATE is not closed")
	}
	return string(rest[:j]), nil
}

// layer is a manifest entry.
type layer struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

// blobData stores data as a blob of dir.
func blobData(dir string, data []byte, media string) (layer, error) {
	sum := sha256.Sum256(data)
	l := layer{MediaType: media, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(data))}
	path := blobPath(dir, sum[:])
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return l, fmt.Errorf("unable to write blob: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return l, fmt.Errorf("unable to write blob: %w", err)
	}
	return l, nil
}

// blobFile stores the file at src as a blob of dir, linked when it can be.
func blobFile(dir, src, media string) (layer, error) {
	f, err := os.Open(src)
	if err != nil {
		return layer{}, fmt.Errorf("unable to read %s: %w", src, err)
	}
	defer f.Close()
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		return layer{}, fmt.Errorf("unable to read %s: %w", src, err)
	}
	sum := h.Sum(nil)
	l := layer{MediaType: media, Digest: "sha256:" + hex.EncodeToString(sum), Size: size}
	path := blobPath(dir, sum)
	if _, err := os.Stat(path); err == nil {
		return l, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return l, fmt.Errorf("unable to write blob: %w", err)
	}
	if os.Link(src, path) == nil {
		return l, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return l, err
	}
	out, err := os.Create(path)
	if err != nil {
		return l, fmt.Errorf("unable to write blob: %w", err)
	}
	if _, err := io.Copy(out, f); err != nil {
		out.Close()
		return l, fmt.Errorf("unable to write blob: %w", err)
	}
	return l, out.Close()
}

func blobPath(dir string, sum []byte) string {
	return filepath.Join(dir, "blobs", "sha256-"+hex.EncodeToString(sum))
}
