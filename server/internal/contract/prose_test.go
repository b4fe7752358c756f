package contract

import "testing"

// A Model section's advice reaches the model; its settings do not.
func TestModelProse(t *testing.T) {
	text := "model: qwen3, llama3.2\ntemperature: 0.2\n\nUse the largest model you have: the notes are long.\nformat: a table per pool\n"
	want := "Use the largest model you have: the notes are long.\nformat: a table per pool"
	if got := ModelProse(text); got != want {
		t.Errorf("ModelProse = %q, want %q", got, want)
	}
}
