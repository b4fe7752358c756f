package agent

import "strings"

// Clean turns a model's answer into the text a stage writes: it removes
// thinking blocks, a chat preamble line ("Sure! Here is the outline:"), a
// chat postscript ("Let me know if you'd like changes.") and one code fence
// wrapping the whole answer (```markdown ... ```). Each rule acts only on
// what is clearly chat about the answer, never on Markdown structure
// (headings, lists, quotes, tables, code), and never leaves nothing where
// there was an answer. The result has Unix line ends, no leading blank
// lines and no trailing white space; it is always a piece of the
// (line-end normalised) input, cut at its start and end only.
func Clean(text string) string {
	s := strings.ReplaceAll(text, "\r\n", "\n")
	s = stripThinking(s)
	s = trimBlank(s)
	s = stripMeta(s)
	if u := unwrapFence(s); u != s {
		// Models sometimes put the chat inside the fence too.
		s = stripMeta(trimBlank(u))
	}
	return trimBlank(s)
}

// thinkTags are the tag pairs reasoning models wrap their thinking in.
var thinkTags = [][2]string{{"<think>", "</think>"}, {"<thinking>", "</thinking>"}}

// stripThinking removes thinking blocks at the start of the answer. An
// opening tag that is never closed means the whole answer was thinking
// (the model stopped before answering). A closing tag with no opening
// before it is what a template that opens the block in the prompt leaves;
// it counts only when no backtick precedes it, so a text that quotes the
// tag in code is left alone. Tags later in the text are content.
func stripThinking(s string) string {
	for {
		t := strings.TrimLeft(s, " \t\n")
		found := false
		for _, tag := range thinkTags {
			if !hasPrefixFold(t, tag[0]) {
				continue
			}
			end := indexFold(t, tag[1])
			if end < 0 {
				return ""
			}
			s, found = t[end+len(tag[1]):], true
			break
		}
		if !found {
			break
		}
	}
	for _, tag := range thinkTags {
		end := indexFold(s, tag[1])
		if end < 0 {
			continue
		}
		before := s[:end]
		if indexFold(before, tag[0]) < 0 && !strings.Contains(before, "`") {
			s = s[end+len(tag[1]):]
		}
	}
	return s
}

// trimBlank removes leading blank lines (keeping the first line's
// indentation) and trailing white space.
func trimBlank(s string) string {
	s = strings.TrimRight(s, " \t\n")
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			return s
		}
		s = s[i+1:]
	}
}

// hasPrefixFold reports whether s starts with the ASCII prefix, ignoring case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// indexFold finds an ASCII tag starting with '<' in s, ignoring case.
func indexFold(s, tag string) int {
	for off := 0; ; {
		i := strings.IndexByte(s[off:], '<')
		if i < 0 {
			return -1
		}
		if hasPrefixFold(s[off+i:], tag) {
			return off + i
		}
		off += i + 1
	}
}
