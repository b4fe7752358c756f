package config

import "testing"

// TestEvidenceEmbedModel: [evidence] embed_model is a key icm reads, off
// when left out.
func TestEvidenceEmbedModel(t *testing.T) {
	data := []byte("[evidence]\nembed_model = \"nomic-embed-text\"\n")
	if ps := Lint(data, LintOptions{}); len(ps) != 0 {
		t.Errorf("lint: %+v", ps)
	}
	cfg, err := Parse("config.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Evidence.EmbedModel != "nomic-embed-text" {
		t.Errorf("embed_model %q", cfg.Evidence.EmbedModel)
	}
	if _, ok := Lookup("evidence.embed_model"); !ok {
		t.Error("the key is not documented")
	}
	if def, _ := Parse("", nil); def.Evidence.EmbedModel != "" {
		t.Errorf("on by default: %q", def.Evidence.EmbedModel)
	}
}

// TestEvidenceEmbedThreshold: the cosine threshold is a number in (0, 1];
// another value is placed on its line.
func TestEvidenceEmbedThreshold(t *testing.T) {
	cfg, err := Parse("config.toml", []byte("[evidence]\nembed_model = \"m\"\nembed_threshold = 0.6\n"))
	if err != nil || cfg.Evidence.EmbedThreshold != 0.6 {
		t.Fatalf("%v %v", cfg.Evidence.EmbedThreshold, err)
	}
	ps := Lint([]byte("[evidence]\nembed_threshold = 1.5\n"), LintOptions{})
	if len(ps) != 1 || ps[0].Key != "evidence.embed_threshold" || ps[0].Line != 2 {
		t.Errorf("lint: %+v", ps)
	}
}
