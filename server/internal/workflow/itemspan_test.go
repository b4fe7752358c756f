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
