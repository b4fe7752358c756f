package browser

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/mcpserver/internal/mcpcall"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
)

func TestReaderTools(t *testing.T) {
	site := sites.New(t)
	c := mcpcall.Connect(t, NewServer(Deps{Pages: httpLoader(t, site, nil), SnippetChars: 2000}))
	tests := []struct {
		name    string
		tool    string
		url     string
		isError bool
		want    []string
		not     []string
	}{
		{"snippet shows the top and says it is partial", "fetch_snippet", site.Page(sites.PathLong), false,
			[]string{"Page: Workspace Guide", "marker-0-0", "[Only the first", "use summarize"}, []string{"marker-7-4"}},
		{"snippet of a short page is whole", "fetch_snippet", site.Page(sites.PathPlain), false,
			[]string{"The answer is 42."}, []string{"[Only the first"}},
		{"urls", "fetch_urls", site.Page(sites.PathLinks), false,
			[]string{"20 links:", "1. Home", site.Page("/chapter/10"), "The spec\n   https://example.org/spec"}, []string{"mailto:", "javascript:", "#top"}},
		{"structure", "fetch_structure", site.Page(sites.PathNested), false,
			[]string{sites.NestedOutline}, []string{"Site navigation"}},
		{"structure of a page without headings", "fetch_structure", site.Page(sites.PathPlain), false,
			[]string{"no headings"}, nil},
		{"file scheme is a tool error", "fetch_snippet", "file:///etc/passwd", true,
			[]string{"only http and https"}, nil},
		{"blocked address is a tool error", "fetch_urls", "http://169.254.169.254/latest/", true,
			[]string{"refused", "link-local"}, nil},
		{"missing url is a tool error", "fetch_structure", "", true,
			[]string{`"url" argument is required`}, nil},
		{"summarize without a model says how to set one", "summarize", site.Page(sites.PathLong), true,
			[]string{"--model"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{}
			if tt.url != "" {
				args["url"] = tt.url
			}
			text, isErr := mcpcall.Call(t, c, tt.tool, args)
			if isErr != tt.isError {
				t.Fatalf("isError = %v: %s", isErr, text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("result lacks %q:\n%s", w, text)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(text, n) {
					t.Errorf("result has %q:\n%s", n, text)
				}
			}
		})
	}
}

func TestToolDescriptionsNameOnlyRealTools(t *testing.T) {
	names := map[string]bool{}
	tools := Tools(Deps{})
	for _, st := range tools {
		names[st.Tool.Name] = true
	}
	for _, st := range tools {
		if strings.Contains(st.Tool.Description, "`fetch`") || strings.Contains(st.Tool.Description, "fetch(") {
			t.Errorf("%s names a fetch tool that does not exist", st.Tool.Name)
		}
		for _, w := range strings.FieldsFunc(st.Tool.Description, func(r rune) bool { return r == ' ' || r == ',' || r == '.' || r == ':' }) {
			if strings.HasPrefix(w, "fetch_") && !names[w] {
				t.Errorf("%s mentions unknown tool %s", st.Tool.Name, w)
			}
		}
	}
	if len(tools) != 5 {
		t.Fatalf("%d tools", len(tools))
	}
}
