package browser

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/mcpserver/internal/mcpcall"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
)

func TestExtractMergesEveryChunk(t *testing.T) {
	site := sites.New(t)
	srv, model := newModel(t, ollamatest.Config{})
	// Each part answers with the markers it holds; only the first part
	// knows the title, and one part answers the title with a wrong type.
	srv.On(ollamatest.SystemContains("You extract data")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		u := r.LastUser()
		ans := map[string]any{"title": nil, "facts": markerRE.FindAllString(u, -1), "launch_date": nil}
		switch {
		case strings.Contains(u, "marker-0-0"):
			ans["title"] = "Workspace Guide"
		case strings.Contains(u, "marker-4-0"):
			ans["title"] = 42
		}
		return ollamatest.JSON(ans)
	})
	reader := &Reader{Model: model, ModelName: "tiny", ChunkChars: 5000, Parallel: 4}
	c := mcpcall.Connect(t, NewServer(Deps{Pages: httpLoader(t, site, nil), Reader: reader}))
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"title":       map[string]any{"type": "string"},
			"facts":       map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"launch_date": map[string]any{"type": "string", "description": "when it launched"},
		},
	}
	text, isErr := mcpcall.Call(t, c, "extract", map[string]any{"url": site.Page(sites.PathLong), "schema": schema})
	if isErr {
		t.Fatalf("tool error: %s", text)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, text)
	}
	want := map[string]any{"title": "Workspace Guide", "launch_date": nil}
	var facts []any
	for _, m := range allMarkers() {
		facts = append(facts, m)
	}
	want["facts"] = facts
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("extract =\n%v\nwant\n%v", got, want)
	}
	reqs := srv.ChatRequests()
	if len(reqs) < 8 {
		t.Fatalf("%d model calls, want one per chunk (at least 8)", len(reqs))
	}
	for _, r := range reqs {
		var f map[string]any
		if err := json.Unmarshal(r.Format, &f); err != nil {
			t.Fatalf("format is not a schema: %s", r.Format)
		}
		props := f["properties"].(map[string]any)
		if tp := props["title"].(map[string]any)["type"]; !reflect.DeepEqual(tp, []any{"string", "null"}) {
			t.Fatalf("title type in format = %v, want nullable", tp)
		}
		if !strings.Contains(r.LastUser(), "<<<UNTRUSTED-") {
			t.Fatalf("extract prompt does not fence the page")
		}
	}
}

func TestExtractToolArguments(t *testing.T) {
	site := sites.New(t)
	srv, model := newModel(t, ollamatest.Config{})
	srv.On(ollamatest.HasFormat()).Reply(ollamatest.JSON(map[string]any{"answer": "42"}))
	c := mcpcall.Connect(t, NewServer(Deps{Pages: httpLoader(t, site, nil), Reader: &Reader{Model: model, ModelName: "tiny"}}))
	tests := []struct {
		name    string
		schema  any
		isError bool
		want    string
	}{
		{"shorthand schema", map[string]any{"answer": "the answer in the notes"}, false, `"answer": "42"`},
		{"schema sent as a string", `{"answer": "string"}`, false, `"answer": "42"`},
		{"no schema", nil, true, `"schema" argument is required`},
		{"schema without fields", map[string]any{"type": "object", "properties": map[string]any{}}, true, "no properties"},
		{"external reference refused", map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"$ref": "file:///etc/passwd"}}}, true, "not valid JSON Schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"url": site.Page(sites.PathPlain)}
			if tt.schema != nil {
				args["schema"] = tt.schema
			}
			text, isErr := mcpcall.Call(t, c, "extract", args)
			if isErr != tt.isError || !strings.Contains(text, tt.want) {
				t.Fatalf("isError=%v text=%s; want isError=%v containing %q", isErr, text, tt.isError, tt.want)
			}
		})
	}
}

func TestExtractionMerge(t *testing.T) {
	e, err := newExtraction(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":  map[string]any{"type": "string"},
			"price": map[string]any{"type": "number"},
			"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"specs": map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	parts := []map[string]any{
		e.clean(map[string]any{"name": "", "price": "cheap", "tags": []any{"a", "b"}, "specs": []any{map[string]any{"k": 1, "v": 2}}}),
		e.clean(map[string]any{"name": "Widget", "price": json.Number("9.5"), "tags": []any{"b", "c"}, "specs": []any{map[string]any{"v": 2, "k": 1}}}),
		e.clean(map[string]any{"name": "Other", "price": json.Number("1"), "tags": nil}),
	}
	got := e.merge(parts)
	want := map[string]any{
		"name":  "Widget",
		"price": json.Number("9.5"),
		"tags":  []any{"a", "b", "c"},
		"specs": []any{map[string]any{"k": 1, "v": 2}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("merge =\n%#v\nwant\n%#v", got, want)
	}
	none := e.merge(nil)
	for _, f := range []string{"name", "price", "tags", "specs"} {
		if v, ok := none[f]; !ok || v != nil {
			t.Errorf("field %s not found should be null, got %v (present %v)", f, v, ok)
		}
	}
}

func TestNullableSchema(t *testing.T) {
	in := map[string]any{"type": "object", "properties": map[string]any{
		"a": map[string]any{"type": "string"},
		"b": map[string]any{"type": []any{"integer", "string"}},
		"c": map[string]any{"enum": []any{"x", "y"}},
		"d": map[string]any{"anyOf": []any{map[string]any{"type": "string"}}},
		"e": map[string]any{},
	}}
	e, err := newExtraction(in)
	if err != nil {
		t.Fatal(err)
	}
	probe := map[string]any{"a": nil, "b": nil, "c": nil, "d": nil, "e": nil}
	if err := e.check.Validate(probe); err != nil {
		t.Fatalf("all-null answer rejected: %v", err)
	}
	if err := e.check.Validate(map[string]any{"a": nil, "b": nil, "c": "z", "d": nil, "e": nil}); err == nil {
		t.Fatalf("enum value outside the enum accepted")
	}
	if _, ok := in["properties"].(map[string]any)["a"].(map[string]any)["type"].(string); !ok {
		t.Fatalf("the caller's schema was changed")
	}
}
