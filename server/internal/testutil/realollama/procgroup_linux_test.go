package realollama

import (
	"os"
	"syscall"
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name      string
		stat      string
		wantState byte
		wantGroup int
		wantOK    bool
	}{
		{"plain", "123 (ollama) S 1 123 123 0 -1", 'S', 123, true},
		{"spaces and parens in comm", "77 (a) b (c)) Z 5 900 900 0", 'Z', 900, true},
		{"no comm", "123 ollama S 1 123", 0, 0, false},
		{"short", "1 (x) R 0", 0, 0, false},
		{"bad group", "1 (x) R 0 abc", 0, 0, false},
		{"state not a letter", "1 (x) 0 0 0 0", 0, 0, false},
		{"empty", "", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			state, group, ok := parseStat([]byte(tt.stat))
			if state != tt.wantState || group != tt.wantGroup || ok != tt.wantOK {
				t.Errorf("parseStat(%q) = %q %d %v, want %q %d %v", tt.stat, state, group, ok, tt.wantState, tt.wantGroup, tt.wantOK)
			}
		})
	}
}

func FuzzParseStat(f *testing.F) {
	for _, s := range []string{"123 (ollama) S 1 123 123 0 -1", "1 ()) R 0 1", ") ) )", "9 (x\n) D 1 -5"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, stat []byte) {
		state, _, ok := parseStat(stat)
		if ok && !isLetter(state) {
			t.Errorf("parseStat(%q) accepted state %q", stat, state)
		}
	})
}

func TestGroupMembersFindsOurOwnGroup(t *testing.T) {
	pgid := syscall.Getpgrp()
	members, err := GroupMembers(pgid)
	if err != nil {
		t.Fatal(err)
	}
	self := os.Getpid()
	for _, pid := range members {
		if pid == self {
			return
		}
	}
	t.Errorf("GroupMembers(%d) = %v, which lacks this process %d", pgid, members, self)
}
