package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/icm-tool/icm/server/internal/config"
)

func TestLoadConfig(t *testing.T) {
	cfg, err := LoadConfig(t.TempDir())
	if err != nil || cfg.Path != "" || cfg.Model.Provider != "ollama" || cfg.Workflow.Gate != "explicit" || cfg.Workflow.Parallel != 1 {
		t.Errorf("with no file: %+v, %v; want the defaults", cfg, err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte("[model]\nname = \"m\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cfg, err := LoadConfig(dir); err != nil || cfg.Model.Name != "m" || cfg.Path != filepath.Join(dir, config.FileName) {
		t.Errorf("LoadConfig = %+v, %v", cfg, err)
	}
	// A config.toml that links out of the folder is refused, never read.
	outside := filepath.Join(t.TempDir(), config.FileName)
	if err := os.WriteFile(outside, []byte("[model]\nname = \"outside\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(linked, config.FileName)); err != nil {
		t.Fatal(err)
	}
	cfg, err = LoadConfig(linked)
	var esc *EscapeError
	if !errors.As(err, &esc) || cfg.Model.Name == "outside" {
		t.Errorf("a config.toml linked out: %+v, %v; want an EscapeError and the defaults", cfg.Model, err)
	}
}
