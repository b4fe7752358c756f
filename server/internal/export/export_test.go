package export

import (
	"regexp"
	"strings"
	"testing"
)

const sample = "# Function calling\n\nModels call tools ([Ollama docs](https://ollama.com/docs/api#chat)).\n\n" +
	"## Setup\n\nInstall it. See https://ollama.com/docs/api and [the blog](https://blog.example.org/post).\n\n" +
	"```python\nimport json\nprint(json.dumps({\"a\": 1}))\n```\n\n### Details\n\n<script>alert(1)</script>\n\n" +
	"[click](javascript:alert(1)) and <img src=x onerror=alert(1)>\n\n## Wrap-up\n\nSources: https://blog.example.org/post\n"

func TestHTML(t *testing.T) {
	page, err := HTML([]byte(sample), Options{Sources: []Source{{URL: "https://ollama.com/docs/api", Title: "Ollama API reference"}}})
	if err != nil {
		t.Fatal(err)
	}
	out := string(page.HTML)
	// Self-contained and inert.
	for _, bad := range []string{"<script", "javascript:", "onerror", "<link", "@import", "src=\"http"} {
		if strings.Contains(out, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	if !strings.Contains(out, "Content-Security-Policy") || !strings.Contains(out, "<style>") {
		t.Error("no CSP or inline style")
	}
	// Title, table of contents with level 2 and 3.
	if !strings.Contains(out, "<title>Function calling</title>") {
		t.Error("title")
	}
	toc := regexp.MustCompile(`(?s)<nav class="toc".*?</nav>`).FindString(out)
	for _, h := range []string{`href="#setup"`, `href="#details"`, `href="#wrap-up"`} {
		if !strings.Contains(toc, h) {
			t.Errorf("toc lacks %s:\n%s", h, toc)
		}
	}
	// Citations: one number per URL (the fragment does not count), in order.
	if len(page.References) != 2 {
		t.Fatalf("references %+v", page.References)
	}
	if r := page.References[0]; r.N != 1 || r.Title != "Ollama API reference" {
		t.Errorf("first reference %+v (the sources title should win)", r)
	}
	if r := page.References[1]; r.N != 2 || r.Title != "the blog" {
		t.Errorf("second reference %+v", r)
	}
	if n := strings.Count(out, `href="#ref-1"`); n != 2 {
		t.Errorf("ref-1 cited %d times, want 2", n)
	}
	if n := strings.Count(out, `href="#ref-2"`); n != 2 {
		t.Errorf("ref-2 cited %d times, want 2", n)
	}
	if !strings.Contains(out, `<li id="ref-2"><a href="https://blog.example.org/post">the blog</a>`) {
		t.Error("reference list entry")
	}
	// Highlighted code as classes, with the style's CSS inline.
	if !strings.Contains(out, `<pre class="code"><code class="language-python"><span class="k">import</span> json`) || !strings.Contains(out, "pre.code .k {") {
		t.Error("no highlighting")
	}
	if _, err := HTML([]byte(sample), Options{Style: "sepia"}); err == nil || !strings.Contains(err.Error(), "dark or light") {
		t.Errorf("an unknown style: %v", err)
	}
}

func TestSourcesFrom(t *testing.T) {
	src := "# Sources\n\n## Ollama API reference\n\nSummary.\nSources: https://ollama.com/docs/api.\n\n## Other\n\n- [A post](https://blog.example.org/post)\n"
	got := SourcesFrom([]byte(src))
	if len(got) != 2 || got[0].URL != "https://blog.example.org/post" || got[0].Title != "A post" || got[1].Title != "Ollama API reference" || got[1].URL != "https://ollama.com/docs/api" {
		t.Errorf("%+v", got)
	}
}

func FuzzHTML(f *testing.F) {
	f.Add(sample)
	f.Add("[x](https://a.b)[y](https://a.b#c)")
	f.Fuzz(func(t *testing.T, s string) {
		page, err := HTML([]byte(s), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(string(page.HTML)), "<script") {
			t.Errorf("script tag from %q", s)
		}
	})
}
