package ollamamodel

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/ollama/ollama/manifest"
	"github.com/ollama/ollama/types/model"
)

// ErrNotFound means no models folder on this machine holds the model: it
// lives on another machine, or it has not been pulled.
var ErrNotFound = errors.New("the model's files are not on this machine")

// Layer media types of an Ollama manifest that shape a chat prompt.
const (
	mediaModel     = "application/vnd.ollama.image.model"
	mediaTemplate  = "application/vnd.ollama.image.template"
	mediaPrompt    = "application/vnd.ollama.image.prompt" // an older name of the template layer
	mediaSystem    = "application/vnd.ollama.image.system"
	mediaMessages  = "application/vnd.ollama.image.messages"
	mediaProjector = "application/vnd.ollama.image.projector"
)

// Files are a pulled model's files: the manifest names them by digest.
type Files struct {
	// Name is the model's full name (registry.ollama.ai/library/qwen3:8b).
	Name string
	// Digest is the sha256 of the manifest: a new pull or create of the
	// name changes it, so it keys caches.
	Digest string
	// Dir is the models folder the manifest was found in.
	Dir string
	// Config is the path of the config blob ("" when the manifest has none).
	Config string
	// Model is the GGUF file.
	Model string
	// Template, System and Messages are layer blobs ("" when absent).
	Template, System, Messages string
	// Projectors are vision projector blobs (images are not counted).
	Projectors []string
}

// ModelsDirs returns the folders a local Ollama server keeps its models
// in, to be searched in order: $OLLAMA_MODELS when set (the server uses
// nothing else then), else ~/.ollama/models, and on Linux also the folder
// of the system service that Ollama's installer sets up.
func ModelsDirs(getenv func(string) string) []string {
	if d := getenv("OLLAMA_MODELS"); d != "" {
		return []string{d}
	}
	var dirs []string
	if home := getenv("HOME"); home != "" {
		dirs = append(dirs, filepath.Join(home, ".ollama", "models"))
	} else if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".ollama", "models"))
	}
	if runtime.GOOS == "linux" {
		dirs = append(dirs, "/usr/share/ollama/.ollama/models")
	}
	return dirs
}

// Find looks the model up in each folder and returns its files from the
// first manifest found. A name the way people write it ("qwen3:8b",
// "qwen3", "hf.co/org/repo:Q4_K_M") is completed as Ollama does.
func Find(dirs []string, name string) (*Files, error) {
	n := model.ParseName(name)
	if !n.IsFullyQualified() {
		return nil, fmt.Errorf("%q is not a model name Ollama accepts", name)
	}
	for _, dir := range dirs {
		path := filepath.Join(dir, "manifests", n.Filepath())
		data, err := readRegular(path, maxManifest)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("unable to read the manifest of %s: %w", name, err)
		}
		return filesOf(dir, n.String(), data)
	}
	return nil, fmt.Errorf("%w (%s: no manifest in %s)", ErrNotFound, name, strings.Join(dirs, ", "))
}

var digestPattern = regexp.MustCompile(`^sha256[:-][0-9a-fA-F]{64}$`)

// blob is the path of a digest's blob, refusing anything that is not a
// sha256 digest, since it becomes part of a path.
func blob(dir, digest string) (string, error) {
	if !digestPattern.MatchString(digest) {
		return "", fmt.Errorf("the manifest names a blob %q that is not a sha256 digest", digest)
	}
	return filepath.Join(dir, "blobs", strings.Replace(digest, ":", "-", 1)), nil
}

func filesOf(dir, name string, data []byte) (*Files, error) {
	var m manifest.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("unable to read the manifest of %s: %w", name, err)
	}
	sum := sha256.Sum256(data)
	f := &Files{Name: name, Digest: hex.EncodeToString(sum[:]), Dir: dir}
	var err error
	if m.Config.Digest != "" {
		if f.Config, err = blob(dir, m.Config.Digest); err != nil {
			return nil, fmt.Errorf("model %s: %w", name, err)
		}
	}
	for _, l := range m.Layers {
		path, err := blob(dir, l.Digest)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", name, err)
		}
		switch l.MediaType {
		case mediaModel:
			f.Model = path
		case mediaTemplate, mediaPrompt:
			f.Template = path
		case mediaSystem:
			f.System = path
		case mediaMessages:
			f.Messages = path
		case mediaProjector:
			f.Projectors = append(f.Projectors, path)
		}
	}
	if f.Model == "" {
		return nil, fmt.Errorf("%w (%s has no model layer: a cloud or remote model)", ErrNotFound, name)
	}
	return f, nil
}
