package suggest

import "testing"

func TestModel(t *testing.T) {
	installed := []string{"qwen3.5:9b", "llama3.2:3b", "nomic-embed-text:latest"}
	tests := map[string]string{
		"qwen3.5:9":          "qwen3.5:9b",
		"qwen35:9b":          "qwen3.5:9b",
		"Qwen3.5:9B":         "", // the same model
		"llama3.2:1b":        "llama3.2:3b",
		"nomic-embed-text":   "", // :latest is implied
		"mistral:7b":         "",
		"qwen3.5:27b":        "qwen3.5:9b", // the one model of that family
		"lama3.2:3b":         "llama3.2:3b",
		"":                   "",
		"deepseek-r1:671b":   "",
		"nomic-embed-tex:v1": "nomic-embed-text:latest",
	}
	for name, want := range tests {
		if got := Model(name, installed); got != want {
			t.Errorf("Model(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestNearest(t *testing.T) {
	keys := []string{"name", "provider", "temperature", "num_ctx", "max_output"}
	for name, want := range map[string]string{"temprature": "temperature", "numctx": "num_ctx", "nam": "name", "colour": "", "name": ""} {
		if got := Nearest(name, keys); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", name, got, want)
		}
	}
	if Distance("kitten", "sitting") != 3 {
		t.Error("Distance(kitten, sitting) != 3")
	}
}

func TestModelTypo(t *testing.T) {
	installed := []string{"qwen3.5:9b", "qwen3:1.7b", "llama3.2:3b"}
	tests := map[string]string{
		"qwen35:9b":   "qwen3.5:9b", // the family misspelt
		"qwen3.5:9":   "qwen3.5:9b", // a slip in the tag
		"lama3.2:3b":  "llama3.2:3b",
		"qwen3:4b":    "", // another size of an installed family: pull it
		"llama3.2:1b": "",
		"qwen3.5":     "", // :latest, another tag
		"mistral:7b":  "",
		"qwen3.5:9b":  "", // installed
	}
	for name, want := range tests {
		if got := ModelTypo(name, installed); got != want {
			t.Errorf("ModelTypo(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestSlip(t *testing.T) {
	sections := []string{"Inputs", "Tools", "Process", "Outputs", "Model", "Verify", "Script", "Gate", "Thresholds"}
	for name, want := range map[string]string{
		"Proces": "Process", "Outptus": "Outputs", "Inptus": "Inputs", "Verfy": "Verify", "Modle": "Model", //nolint:misspell // the typo is what the test is about
		"Treshold": "Thresholds", "Goals": "", "Notes": "", "Roles": "", "Process": "", "Context": "", "Purpose": "",
	} {
		if got := Slip(name, sections); got != want {
			t.Errorf("Slip(%q) = %q, want %q", name, got, want)
		}
	}
}
