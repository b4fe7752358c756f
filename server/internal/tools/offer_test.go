//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/icm-tool/icm/server/internal/report"
)

// TestOfferedMatchesSession: the definitions a count builds from the
// catalog's listings are the ones a session offers the model, for every
// shape of allow list, including two servers whose exposed names clash.
func TestOfferedMatchesSession(t *testing.T) {
	f := newFixture(t)
	// "fx.a" and "fx_a" expose their tools under the same names.
	reg := Registry{"fx": f.server("fx"), "fx.a": f.server("fx.a"), "fx_a": f.server("fx_a")}
	cat := NewCatalog(testOptions())
	t.Cleanup(cat.Wait)
	listings := map[string][]report.ToolInfo{}
	for name := range reg {
		infos, err := cat.ListTools(context.Background(), reg, name)
		if err != nil {
			t.Fatal(err)
		}
		listings[name] = infos
	}
	for _, allow := range []map[string][]string{
		{"fx": nil},
		{"fx": {"*"}},
		{"fx": {"echo", "echo"}},
		{"fx": {"echo"}, "fx.a": nil, "fx_a": nil},
	} {
		sess, err := Open(context.Background(), reg, allow, testOptions())
		if err != nil {
			t.Fatal(err)
		}
		want := sess.Tools()
		if err := sess.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := Offered(listings, allow)
		if err != nil {
			t.Fatalf("%v: %v", allow, err)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) || len(got) == 0 {
			t.Errorf("%v: offered\n%s\nthe session offers\n%s", allow, g, w)
		}
	}

	both, _ := Offered(listings, map[string][]string{"fx.a": {"echo"}, "fx_a": {"echo"}})
	if len(both) != 2 || both[0].Name != "fx_a_echo" || both[1].Name != "fx_a_echo_2" {
		t.Errorf("clashing names exposed as %+v", both)
	}

	// A server not listed is left out; a tool the listing lacks is named.
	got, err := Offered(map[string][]report.ToolInfo{"fx": listings["fx"]}, map[string][]string{"fx": {"echo"}, "gone": nil})
	if err != nil || len(got) != 1 || got[0].Name != "fx_echo" {
		t.Errorf("with an unlisted server: %+v, %v", got, err)
	}
	got, err = Offered(listings, map[string][]string{"fx": {"nope"}, "fx_a": {"echo"}})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || len(got) != 1 {
		t.Errorf("with a missing tool: %+v, %v", got, err)
	}
}
