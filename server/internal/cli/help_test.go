package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/icm-tool/icm/server/internal/testutil/wstest"
)

func TestHelpTopics(t *testing.T) {
	vars := map[string]string{"COLUMNS": "72"}
	cases := []struct {
		topic string
		want  []string
	}{
		{"contract", []string{"THE STAGE CONTRACT GRAMMAR", "FOR EACH", "• The title is the first # heading"}},
		{"config", []string{"CONFIG.TOML", "[[MODEL.SERVERS]]", "api_key_env", "OTEL_EXPORTER_OTLP_ENDPOINT"}},
		{"layers", []string{"LAYER 0: IDENTITY", "LAYER 4: WORKING MATERIAL", "icm probe STAGE"}},
		{"verify", []string{"VERIFY CHECKS", "no-placeholders", "--force"}},
		{"gates", []string{"REVIEW GATES", "awaiting-review", "rerun"}},
	}
	for _, tc := range cases {
		t.Run(tc.topic, func(t *testing.T) {
			out, errOut, err := runIn(t, t.TempDir(), vars, "help", tc.topic)
			if err != nil || errOut != "" {
				t.Fatalf("help %s: %v %s", tc.topic, err, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("%q missing from help %s", w, tc.topic)
				}
			}
			for i, line := range strings.Split(out, "\n") {
				code := strings.HasPrefix(line, "        ")
				if !code && utf8.RuneCountInString(line) > 72 {
					t.Errorf("line %d is wider than COLUMNS: %q", i+1, line)
				}
				if (!code && strings.Contains(line, "```")) || strings.Contains(line, "\x1b[") {
					t.Errorf("line %d holds Markdown fences or escape codes: %q", i+1, line)
				}
			}
		})
	}
}

func TestHelpWithoutTopicIsTheUsualHelp(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"help"}, []string{"Available Commands:", "init", "new-stage", "completion", "Additional help topics:", "icm contract"}},
		{[]string{"help", "run"}, []string{"Usage:", "icm run [flags]", "--stage"}},
		{[]string{"--help"}, []string{"Available Commands:", "Additional help topics:"}},
	}
	for _, tc := range cases {
		out, _, err := runIn(t, t.TempDir(), nil, tc.args...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: %q missing:\n%s", tc.args, w, out)
			}
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, _, err := runIn(t, t.TempDir(), nil, "completion", shell)
		if err != nil {
			t.Fatalf("%s: %v", shell, err)
		}
		// The scripts ask the binary at each TAB (icm __complete ...).
		if !strings.Contains(out, "icm") || !strings.Contains(out, "__complete") || len(out) < 1000 {
			t.Errorf("%s completion script (%d bytes) does not look like one", shell, len(out))
		}
	}
	out, _, err := runIn(t, t.TempDir(), nil, "__complete", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"run", "approve", "probe", "init", "new-stage", "history", "check"} {
		if !strings.Contains(out, "\n"+c+"\t") && !strings.HasPrefix(out, c+"\t") {
			t.Errorf("command %s not offered:\n%s", c, out)
		}
	}
}

func TestStageCompletion(t *testing.T) {
	dir := wstest.Copy(t, "course-research")
	stages := []string{"01-scope\tpending", "02-research\tpending", "03-outline\tpending", "04-draft\tpending"}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "approve", ""}, stages},
		{[]string{"__complete", "probe", "0"}, stages},
		{[]string{"__complete", "run", "--stage", ""}, stages},
		{[]string{"__complete", "history", "--diff", ""}, stages},
		{[]string{"__complete", "approve", "01-scope", ""}, nil},
	}
	for _, tc := range cases {
		out, _, err := runIn(t, dir, nil, tc.args...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		got := lines[:len(lines)-1] // the last line is the directive
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%v offered %q, want %q", tc.args, got, tc.want)
		}
	}
	// Outside a workspace: nothing offered, no error.
	out, _, err := runIn(t, t.TempDir(), nil, "__complete", "approve", "")
	if err != nil || strings.Contains(out, "01-") {
		t.Errorf("outside a workspace: %v %q", err, out)
	}
}
