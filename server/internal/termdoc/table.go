package termdoc

import (
	"strings"

	extast "github.com/yuin/goldmark/extension/ast"
)

// minColumn is the narrowest a column is squeezed to before the table is
// left wider than the page.
const minColumn = 10

// table lays a table out in columns two spaces apart, the header
// underlined; when it is wider than the page, the widest columns are
// narrowed and their cells wrapped.
func (r *renderer) table(t *extast.Table, indent int) {
	var rows [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, r.inline(c))
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return
	}
	cols := 0
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	widths := make([]int, cols)
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], runeLen(c))
		}
	}
	avail := r.width - indent - 2*(cols-1)
	for sum(widths) > avail {
		widest := 0
		for i := range widths {
			if widths[i] > widths[widest] {
				widest = i
			}
		}
		if widths[widest] <= minColumn {
			break
		}
		widths[widest]--
	}
	_, header := t.FirstChild().(*extast.TableHeader)
	for ri, row := range rows {
		wrapped := make([][]string, cols)
		height := 1
		for i := 0; i < cols; i++ {
			cell := ""
			if i < len(row) {
				cell = row[i]
			}
			wrapped[i] = wrap(cell, widths[i], widths[i])
			height = max(height, len(wrapped[i]))
		}
		for l := 0; l < height; l++ {
			var b strings.Builder
			b.WriteString(strings.Repeat(" ", indent))
			for i := 0; i < cols; i++ {
				part := ""
				if l < len(wrapped[i]) {
					part = wrapped[i][l]
				}
				b.WriteString(part)
				if i < cols-1 {
					b.WriteString(strings.Repeat(" ", widths[i]-runeLen(part)+2))
				}
			}
			r.out.WriteString(strings.TrimRight(b.String(), " ") + "\n")
		}
		if ri == 0 && header {
			var b strings.Builder
			b.WriteString(strings.Repeat(" ", indent))
			for i, w := range widths {
				b.WriteString(strings.Repeat("-", w))
				if i < cols-1 {
					b.WriteString("  ")
				}
			}
			r.out.WriteString(b.String() + "\n")
		}
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
