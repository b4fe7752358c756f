package realollama

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/icm-tool/icm/server/internal/testutil/devcache"
)

// modelFormat names the way this package builds weights; change it when
// the weights or the metadata change, so cached files are made again.
const modelFormat = "icm-tiny-1"

// cachedModel returns the path of the spec's model file in the cache
// ($CACHE_DIR/realollama-models), writing it the first time. The name
// holds a hash of the spec, the format and the vocabulary's source file,
// so a changed input makes a new file; concurrent writers each write a
// temporary file and rename it, so a reader never sees half a file.
func cachedModel(spec ModelSpec, cacheDir string) (string, error) {
	if cacheDir == "" {
		var err error
		if cacheDir, err = devcache.Dir(); err != nil {
			return "", err
		}
	}
	src, err := Qwen3TokenizerPath()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	// The spec as it was written before it had an architecture, so the
	// files cached then are still found.
	fmt.Fprintf(h, "%s {ContextLength:%v Seed:%v EndChance:%v Vocabulary:%s}", modelFormat, spec.ContextLength, spec.Seed, spec.EndChance, spec.Vocabulary)
	if spec.Architecture != "" {
		fmt.Fprintf(h, " %s", spec.Architecture)
	}
	fmt.Fprintln(h)
	f, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("unable to read %s: %w", src, err)
	}
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return "", fmt.Errorf("unable to read %s: %w", src, err)
	}
	dir := filepath.Join(cacheDir, "realollama-models")
	path := filepath.Join(dir, fmt.Sprintf("icm-tiny-%s-%s.gguf", spec.Vocabulary, hex.EncodeToString(h.Sum(nil))[:16]))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("unable to create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, ".writing-*.gguf")
	if err != nil {
		return "", fmt.Errorf("unable to create a model file in %s: %w", dir, err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := WriteModel(tmp.Name(), spec); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("unable to move the model into %s: %w", path, err)
	}
	return path, nil
}
