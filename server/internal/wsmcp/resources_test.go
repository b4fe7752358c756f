package wsmcp

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/session"
)

func TestURIsRoundTrip(t *testing.T) {
	one := &Server{wss: nameWorkspaces([]string{"/w/course-research"})}
	many := &Server{wss: nameWorkspaces([]string{"/a/course", "/b/course", "/c/notes"})}
	if got := []string{many.wss[0].name, many.wss[1].name, many.wss[2].name}; strings.Join(got, ",") != "course,course-2,notes" {
		t.Fatalf("names %v: a second folder of one name is told apart", got)
	}
	// A folder already named as a second one would be is told apart too.
	clash := nameWorkspaces([]string{"/a/course", "/b/course", "/c/course-2", "/d/course-2"})
	seen := map[string]bool{}
	for _, w := range clash {
		if seen[w.name] {
			t.Fatalf("two workspaces are named %s: %v, %v, %v, %v", w.name, clash[0].name, clash[1].name, clash[2].name, clash[3].name)
		}
		seen[w.name] = true
	}
	if clash[0].name != "course" || clash[2].name != "course-2" {
		t.Errorf("names %s, %s, %s, %s", clash[0].name, clash[1].name, clash[2].name, clash[3].name)
	}
	for _, tc := range []struct {
		s           *Server
		ws          int
		stage, kind string
		item        int
		want        string
	}{
		{one, 0, "01-scope", kindContext, 0, "icm://01-scope/context"},
		{one, 0, "04-draft", kindContext, 3, "icm://04-draft/context/3"},
		{one, 0, "01 my stage", kindOutputs, 0, "icm://01%20my%20stage/outputs"},
		{many, 1, "01-scope", kindContract, 0, "icm://course-2/01-scope/contract"},
	} {
		u := tc.s.uri(tc.s.wss[tc.ws], tc.stage, tc.kind, tc.item)
		if u != tc.want {
			t.Errorf("uri = %s, want %s", u, tc.want)
		}
		r, err := tc.s.parse(u)
		if err != nil || r.ws != tc.s.wss[tc.ws] || r.stage != tc.stage || r.kind != tc.kind || r.item != tc.item {
			t.Errorf("parse(%s) = %+v, %v", u, r, err)
		}
	}
	for _, bad := range []string{"file:///x", "icm://01-scope", "icm://01-scope/secrets", "icm://01-scope/context/0", "icm://01-scope/outputs/2"} {
		if _, err := one.parse(bad); err == nil {
			t.Errorf("parse(%s) took it", bad)
		}
	}
	if _, err := many.parse("icm://01-scope/context"); err == nil {
		t.Error("with several workspaces a URI without one was taken")
	}
	if _, err := many.parse("icm://nowhere/01-scope/context"); err == nil || !strings.Contains(err.Error(), "course, course-2, notes") {
		t.Errorf("an unknown workspace: %v", err)
	}
}

// TestSubscriptionsAreBounded: every subscribed resource is read again
// each poll, so a client cannot make the server keep an unbounded number
// of them, nor one that names no icm resource.
func TestSubscriptionsAreBounded(t *testing.T) {
	var warned []string
	s := &Server{wss: nameWorkspaces([]string{"/w/course"}), subs: map[string]string{},
		d: Deps{Open: func(string) (*session.Session, error) { return nil, errors.New("not opened in this test") },
			Warn: func(m string) { warned = append(warned, m) }}}
	s.subscribe("file:///etc/passwd")
	s.subscribe("icm://01-scope/secrets")
	if len(s.subs) != 0 {
		t.Fatalf("kept %d subscriptions to no icm resource", len(s.subs))
	}
	for i := 1; i <= maxSubscriptions+50; i++ {
		s.subscribe(fmt.Sprintf("icm://04-draft/context/%d", i))
	}
	if len(s.subs) != maxSubscriptions {
		t.Fatalf("kept %d subscriptions, want the bound %d", len(s.subs), maxSubscriptions)
	}
	if len(warned) != 3 || !strings.Contains(warned[2], "256 subscriptions are kept at most") {
		t.Errorf("the refused subscriptions were not told once: %v", warned)
	}
	s.subscribe("icm://04-draft/context/1")
	if len(s.subs) != maxSubscriptions {
		t.Errorf("subscribing again to a kept URI changed the count to %d", len(s.subs))
	}
}

// FuzzParseURI: any text a client sends as a URI is read without a
// panic, and one that parses names its resource again as the same URI
// does.
func FuzzParseURI(f *testing.F) {
	for _, seed := range []string{"icm://01-scope/context", "icm://a/01-scope/context/3", "icm://01%20x/outputs", "icm://%zz/context", "icm:///", "icm://a/b/c/d/e"} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	one := &Server{wss: nameWorkspaces([]string{"/w/course"})}
	many := &Server{wss: nameWorkspaces([]string{"/a/a", "/b/b"})}
	f.Fuzz(func(t *testing.T, raw string, several bool) {
		s := one
		if several {
			s = many
		}
		r, err := s.parse(raw)
		if err != nil {
			return
		}
		again, err := s.parse(s.uri(r.ws, r.stage, r.kind, r.item))
		if err != nil || again != r {
			t.Fatalf("%q parsed to %+v; its URI %q parses to %+v, %v", raw, r, s.uri(r.ws, r.stage, r.kind, r.item), again, err)
		}
	})
}
