package document

import (
	"testing"
)

func TestMapperRoundTrip(t *testing.T) {
	// "é" is 2 bytes / 1 UTF-16 unit; "😀" is 4 bytes / 2 UTF-16 units;
	// "Ж" is 2 bytes / 1 unit; "\r\n" line ending in the middle.
	src := []byte("# Stage: é😀x\r\nЖук: b\n\nlast")
	m := NewMapper(src)
	tests := []struct {
		off  int
		pos  Position
		line int
		col  int
	}{
		{0, Position{0, 0}, 1, 1},
		{9, Position{0, 9}, 1, 10},   // before é
		{11, Position{0, 10}, 1, 11}, // before 😀
		{15, Position{0, 12}, 1, 12}, // before x: 😀 counts 2 UTF-16 units, 1 character
		{16, Position{0, 13}, 1, 13}, // before \r
		{18, Position{1, 0}, 2, 1},   // start of line 2
		{20, Position{1, 1}, 2, 2},   // after Ж
		{len(src), Position{3, 4}, 4, 5},
	}
	for _, tt := range tests {
		p, err := m.Position(tt.off)
		if err != nil {
			t.Fatalf("Position(%d): %v", tt.off, err)
		}
		if p != tt.pos {
			t.Errorf("Position(%d) = %+v, want %+v", tt.off, p, tt.pos)
		}
		off, err := m.Offset(tt.pos)
		if err != nil {
			t.Fatalf("Offset(%+v): %v", tt.pos, err)
		}
		if off != tt.off {
			t.Errorf("Offset(%+v) = %d, want %d", tt.pos, off, tt.off)
		}
		line, col, err := m.LineCol(tt.off)
		if err != nil {
			t.Fatal(err)
		}
		if line != tt.line || col != tt.col {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", tt.off, line, col, tt.line, tt.col)
		}
	}
}

func TestMapperErrors(t *testing.T) {
	src := []byte("aé\nb")
	m := NewMapper(src)
	if _, err := m.Position(2); err == nil {
		t.Error("offset inside é: want error")
	}
	if _, err := m.Position(-1); err == nil {
		t.Error("negative offset: want error")
	}
	if _, err := m.Position(len(src) + 1); err == nil {
		t.Error("offset past the end: want error")
	}
	if _, err := m.Offset(Position{Line: 5}); err == nil {
		t.Error("line past the end: want error")
	}
	// A column past the end of a line clamps to the line end (LSP rule).
	off, err := m.Offset(Position{Line: 0, Character: 99})
	if err != nil || off != 3 {
		t.Errorf("Offset(line 0, col 99) = %d, %v; want 3, nil", off, err)
	}
	// A column in the middle of a surrogate pair stops before the pair.
	m2 := NewMapper([]byte("😀a"))
	off, err = m2.Offset(Position{Line: 0, Character: 1})
	if err != nil || off != 0 {
		t.Errorf("Offset into surrogate pair = %d, %v; want 0, nil", off, err)
	}
}

func TestMapperInvalidUTF8(t *testing.T) {
	src := []byte{'a', 0xff, 'b', '\n', 'c'}
	m := NewMapper(src)
	p, err := m.Position(2)
	if err != nil {
		t.Fatal(err)
	}
	if p != (Position{0, 2}) {
		t.Errorf("Position after invalid byte = %+v, want {0 2}", p)
	}
	off, err := m.Offset(p)
	if err != nil || off != 2 {
		t.Errorf("Offset back = %d, %v; want 2", off, err)
	}
}

func FuzzMapper(f *testing.F) {
	f.Add([]byte("héllo\nwörld 😀\r\n"), 3)
	f.Add([]byte{0xff, 0xfe, '\n'}, 1)
	f.Fuzz(func(t *testing.T, src []byte, off int) {
		m := NewMapper(src)
		p, err := m.Position(off)
		if err != nil {
			return
		}
		back, err := m.Offset(p)
		if err != nil {
			t.Fatalf("Offset(%+v) after Position(%d): %v", p, off, err)
		}
		// Round trip lands on the same offset unless the offset was at a
		// "\r" before "\n", which editors do not address.
		if back != off && !(off < len(src) && src[off] == '\n' && off > 0 && src[off-1] == '\r') {
			t.Fatalf("round trip %d -> %+v -> %d", off, p, back)
		}
	})
}
