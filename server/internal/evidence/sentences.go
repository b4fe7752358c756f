package evidence

// sentences splits text[start:end] at the ends of sentences: a full stop,
// question or exclamation mark followed by a space or a line break (a
// decimal point is followed by a digit, so "7.5" stays whole). It returns
// each sentence's range.
func sentences(text string, start, end int) [][2]int {
	var out [][2]int
	from := start
	for i := start; i < end; i++ {
		switch text[i] {
		case '.', '!', '?':
			if i+1 < end && isSpace(text[i+1]) {
				out = append(out, [2]int{from, i + 1})
				from = i + 1
			}
		}
	}
	if from < end {
		out = append(out, [2]int{from, end})
	}
	return out
}

// split groups words (in order) by the ranges they fall in.
func split(ws []word, ranges [][2]int) [][]word {
	out := make([][]word, 0, len(ranges))
	i := 0
	for _, r := range ranges {
		for i < len(ws) && ws[i].start < r[0] {
			i++
		}
		j := i
		for j < len(ws) && ws[j].end <= r[1] {
			j++
		}
		out = append(out, ws[i:j])
		i = j
	}
	return out
}
