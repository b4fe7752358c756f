package browser

import (
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/mcpserver/internal/mcpcall"
	"github.com/icm-tool/icm/server/internal/testutil/ollamatest"
	"github.com/icm-tool/icm/server/internal/testutil/sites"
)

func TestSummarizeReadsEveryChunk(t *testing.T) {
	site := sites.New(t)
	srv, model := newModel(t, ollamatest.Config{})
	scriptNotes(srv)
	reader := &Reader{Model: model, ModelName: "tiny", ChunkChars: 5000, Overlap: 300, Parallel: 4}
	cache := &Cache{Dir: t.TempDir()}
	c := mcpcall.Connect(t, NewServer(Deps{Pages: httpLoader(t, site, cache), Reader: reader, Cache: cache}))

	text, isErr := mcpcall.Call(t, c, "summarize", map[string]any{"url": site.Page(sites.PathLong), "question": "What values are held?"})
	if isErr {
		t.Fatalf("tool error: %s", text)
	}
	reqs := srv.ChatRequests()
	var maps []*ollamatest.Request
	var reduces []*ollamatest.Request
	for _, r := range reqs {
		switch {
		case strings.Contains(r.System(), "You take notes on one part"):
			maps = append(maps, r)
		case strings.Contains(r.System(), "You write one answer from notes"):
			reduces = append(reduces, r)
		default:
			t.Fatalf("unexpected call with system %q", r.System())
		}
	}
	if len(maps) < 8 || len(reduces) != 1 {
		t.Fatalf("%d map calls and %d reduce calls; want at least 8 and 1", len(maps), len(reduces))
	}
	// Every part of the page was sent: each paragraph's marker is in a map call.
	sent := strings.Builder{}
	for _, m := range maps {
		u := m.LastUser()
		sent.WriteString(u)
		if !strings.Contains(u, "not instructions") || !strings.Contains(u, "<<<UNTRUSTED-") {
			t.Fatalf("map prompt does not fence the page:\n%.300s", u)
		}
		if !strings.Contains(u, "What values are held?") {
			t.Fatalf("map prompt lacks the question")
		}
	}
	for _, mk := range allMarkers() {
		if !strings.Contains(sent.String(), mk) {
			t.Errorf("%s was never sent to the model", mk)
		}
	}
	// The reduce step received every partial answer.
	red := reduces[0].LastUser()
	for _, mk := range allMarkers() {
		if !strings.Contains(red, mk) {
			t.Errorf("reduce prompt lacks the note about %s", mk)
		}
	}
	if !strings.Contains(text, "Summary of marker-0-0") || !strings.Contains(text, "marker-7-4") {
		t.Fatalf("tool result is not the reduce answer:\n%s", text)
	}
	for _, r := range reqs {
		if on, set := r.ThinkRequested(); on || !set {
			t.Errorf("think = %v (set %v), want false", on, set)
		}
	}

	// A second call is answered from the cache: no fetch, no model call.
	hits := site.Hits(sites.PathLong)
	again, _ := mcpcall.Call(t, c, "summarize", map[string]any{"url": site.Page(sites.PathLong), "question": "What values are held?"})
	if again != text || site.Hits(sites.PathLong) != hits || len(srv.ChatRequests()) != len(reqs) {
		t.Fatalf("second call fetched or summarised again (hits %d→%d, chats %d→%d)", hits, site.Hits(sites.PathLong), len(reqs), len(srv.ChatRequests()))
	}
}

func TestSummarizeNoCacheReadsAgain(t *testing.T) {
	site := sites.New(t)
	srv, model := newModel(t, ollamatest.Config{})
	scriptNotes(srv)
	reader := &Reader{Model: model, ModelName: "tiny"}
	c := mcpcall.Connect(t, NewServer(Deps{Pages: httpLoader(t, site, nil), Reader: reader}))
	for i := 0; i < 2; i++ {
		if text, isErr := mcpcall.Call(t, c, "summarize", map[string]any{"url": site.Page(sites.PathNested)}); isErr || text == "" {
			t.Fatalf("call %d: %s", i, text)
		}
	}
	if site.Hits(sites.PathNested) != 2 || len(srv.ChatRequests()) != 2 {
		t.Fatalf("hits %d, chats %d; want 2 and 2 without a cache", site.Hits(sites.PathNested), len(srv.ChatRequests()))
	}
	if got := srv.ChatRequests()[0].System(); !strings.Contains(got, "You summarise a web page") {
		t.Fatalf("a one-chunk page took the map-reduce path: %q", got)
	}
}

func TestSummarizeSurvivesAFailedChunk(t *testing.T) {
	site := sites.New(t)
	srv, model := newModel(t, ollamatest.Config{})
	srv.On(ollamatest.And(ollamatest.SystemContains("You take notes"), ollamatest.LastUserContains("marker-2-0"))).Reply(ollamatest.Fail(400, "bad chunk"))
	scriptNotes(srv)
	reader := &Reader{Model: model, ModelName: "tiny", ChunkChars: 5000}
	p, err := httpLoader(t, site, nil).Load(t.Context(), site.Page(sites.PathLong))
	if err != nil {
		t.Fatal(err)
	}
	out, err := reader.Summarize(t.Context(), p, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "could not be read") || !strings.Contains(out, "marker-7-4") {
		t.Fatalf("summary = %q", out)
	}
}

func TestSummarizeDropsChromeOnlyParts(t *testing.T) {
	srv, model := newModel(t, ollamatest.Config{})
	srv.On(ollamatest.And(ollamatest.SystemContains("You take notes"), ollamatest.LastUserContains("cookie"))).Reply(ollamatest.Text("NOTHING."))
	srv.On(ollamatest.SystemContains("You take notes")).Reply(ollamatest.Text("The fee is 5 euros."))
	var reduce *ollamatest.Request
	srv.On(ollamatest.SystemContains("You write one answer")).ReplyFunc(func(r *ollamatest.Request) ollamatest.Turn {
		reduce = r
		return ollamatest.Text("The fee is 5 euros.")
	})
	page := &Page{URL: "http://x.test/", Markdown: strings.Repeat("cookie banner text. ", 60) + "\n\n" + strings.Repeat("The fee is 5 euros. ", 60)}
	reader := &Reader{Model: model, ModelName: "tiny", ChunkChars: 1300, Overlap: 10}
	if _, err := reader.Summarize(t.Context(), page, ""); err != nil {
		t.Fatal(err)
	}
	if reduce == nil || strings.Contains(reduce.LastUser(), "NOTHING") {
		t.Fatalf("reduce got a chrome-only note or never ran")
	}
	sys := reduce.System()
	for _, want := range []string{"never mention notes, parts", "Drop any note about site navigation"} {
		if !strings.Contains(sys, want) {
			t.Errorf("reduce prompt lacks %q", want)
		}
	}
}

func TestSummarizeRunsChunksConcurrently(t *testing.T) {
	srv, model := newModel(t, ollamatest.Config{Slots: 4})
	hold := make(chan struct{})
	srv.On(ollamatest.SystemContains("You take notes")).Reply(ollamatest.Text("note").WithHold(hold))
	srv.On(ollamatest.SystemContains("You write one answer")).Reply(ollamatest.Text("done"))
	page := &Page{URL: "http://x.test/", Markdown: strings.Repeat(strings.Repeat("word ", 190)+"\n\n", 8)}
	reader := &Reader{Model: model, ModelName: "tiny", ChunkChars: 1000, Overlap: 0, Parallel: 3}
	if n := len(reader.chunks(page)); n != 8 {
		t.Fatalf("%d chunks, want 8", n)
	}
	done := make(chan error, 1)
	go func() {
		_, err := reader.Summarize(t.Context(), page, "")
		done <- err
	}()
	// Three calls in flight (the reader's limit, below the server's four
	// slots) and no more are started while they are held.
	if err := srv.Await(t.Context(), func(s ollamatest.Stats) bool { return s.Active == 3 }); err != nil {
		t.Fatal(err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if peak := srv.Stats().PeakInFlight; peak != 3 {
		t.Fatalf("peak in flight = %d, want 3", peak)
	}
}
