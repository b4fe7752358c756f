package workflow

import "testing"

func TestLocateItems(t *testing.T) {
	items := []WrittenItem{{1, "A", "## A\n\nalpha"}, {2, "B", "## B\n\nbeta"}, {3, "C", "## C\n\ngamma"}}
	tests := []struct {
		name   string
		output string
		// want is each item's section text, "?" when not found, and whether edited.
		want   []string
		edited []bool
	}{
		{"untouched", "## A\n\nalpha\n\n## B\n\nbeta\n\n## C\n\ngamma\n", []string{"## A\n\nalpha", "## B\n\nbeta", "## C\n\ngamma"}, []bool{false, false, false}},
		{"middle edited", "## A\n\nalpha\n\n## B\n\nmy beta\nmore\n\n## C\n\ngamma\n", []string{"## A\n\nalpha", "## B\n\nmy beta\nmore", "## C\n\ngamma"}, []bool{false, true, false}},
		{"first and last edited", "# Title I added\n\n## A\n\nmine\n\n## B\n\nbeta\n\n## C\n\ngamma, mine\n", []string{"# Title I added\n\n## A\n\nmine", "## B\n\nbeta", "## C\n\ngamma, mine"}, []bool{true, false, true}},
		{"two edited, told apart by headings", "## A\n\nalpha\n\n## B\n\nb1\n\n## C\n\nc1\n", []string{"## A\n\nalpha", "## B\n\nb1", "## C\n\nc1"}, []bool{false, true, true}},
		{"two edited, headings gone", "## A\n\nalpha\n\nwhat was B\n\nwhat was C\n", []string{"## A\n\nalpha", "?", "?"}, nil},
		{"deleted", "## A\n\nalpha\n\n## C\n\ngamma\n", []string{"## A\n\nalpha", "", "## C\n\ngamma"}, []bool{false, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans := LocateItems(tt.output, items)
			for i, sp := range spans {
				got := "?"
				if sp.Found {
					got = tt.output[sp.Start:sp.End]
				}
				if got != tt.want[i] {
					t.Errorf("item %d: %q, want %q", i+1, got, tt.want[i])
				}
				if tt.edited != nil && sp.Found && sp.Edited != tt.edited[i] {
					t.Errorf("item %d: edited %v", i+1, sp.Edited)
				}
			}
		})
	}
	// Putting a deleted item back restores the separators.
	out := "## A\n\nalpha\n\n## C\n\ngamma\n"
	sp := LocateItems(out, items)[1]
	if got := replaceSpan(out, sp, "## B\n\nnew beta"); got != "## A\n\nalpha\n\n## B\n\nnew beta\n\n## C\n\ngamma\n" {
		t.Errorf("replaceSpan into a deleted item: %q", got)
	}
}

// TestLocateItemsWithTwins: when the model answered two items alike and
// the person edited the first, the first is not taken for its twin: the
// third item is found at the end, and running it again replaces it in
// place. The greedy search appended the third item's new answer to the
// end of the file, leaving four sections for three items.
func TestLocateItemsWithTwins(t *testing.T) {
	items := []WrittenItem{{1, "A", "ok"}, {2, "B", "ok"}, {3, "C", "ok"}}
	out := "ok EDITED\n\nok\n\nok\n"
	spans := LocateItems(out, items)
	want := []string{"ok EDITED", "ok", "ok"}
	for i, sp := range spans {
		if !sp.Found || out[sp.Start:sp.End] != want[i] {
			t.Errorf("item %d: found %v at %d..%d, want %q", i+1, sp.Found, sp.Start, sp.End, want[i])
		}
	}
	if got := replaceSpan(out, spans[2], "new"); got != "ok EDITED\n\nok\n\nnew\n" {
		t.Errorf("running item 3 again gives %q", got)
	}
}
