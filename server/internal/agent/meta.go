package agent

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Limits on what can count as chat around an answer: a preamble is one
// short line, a postscript one short paragraph.
const (
	maxPreambleChars   = 200
	maxPostscriptChars = 400
	maxMetaRounds      = 3
)

// metaPatterns are the phrases that mark a model's answer as talking
// about itself rather than being the output.
type metaPatterns struct {
	interjection     *regexp.Regexp
	handOver         *regexp.Regexp
	preambleOpener   *regexp.Regexp
	selfOpener       *regexp.Regexp
	selfVerb         *regexp.Regexp
	deliverable      *regexp.Regexp
	pointer          *regexp.Regexp
	postscriptOpener *regexp.Regexp
	offerOpener      *regexp.Regexp
	firstPerson      *regexp.Regexp
	noteAboutSelf    *regexp.Regexp
	orderedItem      *regexp.Regexp
}

// meta is the patterns, compiled on first use: compiling them at start-up
// would cost every icm command, most of which never clean an answer.
var meta = sync.OnceValue(func() *metaPatterns {
	return &metaPatterns{
		// interjection opens a chat reply: "Sure!", "Okay, ...", "Certainly."
		// It needs punctuation after it, and what follows must itself be chat
		// (or nothing): "Of course, the rain had stopped." is a story.
		interjection: regexp.MustCompile(`^(sure( thing)?|certainly|of course|absolutely|okay|ok|alright|all right|great|got it|understood|no problem|gladly|perfect)\s*[,.!:;—–-]+\s*`),

		// handOver is a line that does nothing but hand the answer over.
		handOver: regexp.MustCompile(`^(here it is|here you go|here you are)\b[\s.!:]*$`),

		// preambleOpener starts a line that may announce the answer.
		preambleOpener: regexp.MustCompile(`^(here is|here's|here are|below is|below are|the following is|what follows is|as requested|as you requested|as you asked|per your request|i've|i have|i'll|i will|i am going to|i'm going to|let me|allow me to|i'd be happy to|i would be happy to|i'm happy to|i am happy to)\b`),

		// selfOpener is the first-person subset of preambleOpener.
		selfOpener: regexp.MustCompile(`^(i|let|allow)`),

		// selfVerb is what the model says it did or will do in an "I ..." opener.
		selfVerb: regexp.MustCompile(`\b(written|wrote|write|created|create|drafted|draft|prepared|prepare|put together|compiled|compile|produced|produce|generated|generate|revised|revise|updated|update|rewritten|rewrite|provided|provide|present|share|outlined|summari[sz]ed|summari[sz]e|organi[sz]ed|structured|formatted|expanded|refined|fixed|incorporated|addressed)\b`),

		// deliverable names the thing a stage produces.
		deliverable: regexp.MustCompile(`\b(outline|draft|document|summary|report|article|essay|blog post|plan|list|answer|response|output|version|revision|rewrite|markdown|file|brief|overview|requested|updated|revised|final|completed|finished)\b`),

		// pointer points at the answer that follows.
		pointer: regexp.MustCompile(`\b(below|the following|as requested|you asked for|you requested)\b`),

		// postscriptOpener starts a paragraph that is chat whatever follows.
		postscriptOpener: regexp.MustCompile(`^(please let me know (if|whether|how)|let me know (if|whether|how)|i hope (this|that|it|these|the above) (helps|is helpful|is useful|works|meets|fits|gives|serves|covers|captures)|hope (this|that|it) helps|happy to help|i('m| am) happy to|i('d| would) be (happy|glad)|i can (also|further|easily|help|expand|adjust|revise|refine|add|make|tweak|change)|shall i|should i (also|expand|add|revise|change)|want me to|do you want me)\b`),

		// offerOpener starts a paragraph that is chat only when it also speaks
		// of the model itself: "If you'd like, I can ..." but not "If you need
		// help, contact support."
		offerOpener: regexp.MustCompile(`^(if you('d| would) like|if you want|if you need|if you have any|would you like|feel free to|is there anything|any (questions|feedback)|good luck|happy writing)\b`),

		// firstPerson finds the model speaking of itself.
		firstPerson: regexp.MustCompile(`\b(i|i'm|i'll|i'd|i've|me|my)\b`),

		// noteAboutSelf is a note about how the model made the answer:
		// "Note: I kept ...", "Note: this draft ...".
		noteAboutSelf: regexp.MustCompile(`^(note|n\.b\.|p\.s\.|ps)\s*[:.]\s*(i|i've|i'm|i have|i am|this (draft|outline|document|response|answer|version|summary|report|revision))\b`),

		// orderedItem is a numbered list item.
		orderedItem: regexp.MustCompile(`^\d{1,9}[.)](\s|$)`),
	}
})

// stripMeta removes chat lines before and after the answer.
func stripMeta(s string) string {
	for i := 0; i < maxMetaRounds; i++ {
		t := trimBlank(stripPostscript(stripPreamble(s)))
		if t == s {
			break
		}
		s = t
	}
	return s
}

// stripPreamble removes a first line that only announces the answer.
func stripPreamble(s string) string {
	first, rest, ok := strings.Cut(s, "\n")
	if !ok || isBlank(rest) || utf8.RuneCountInString(first) > maxPreambleChars || structural(first) {
		return s
	}
	if next, _, _ := strings.Cut(rest, "\n"); isUnderline(next) {
		return s // the line is a setext heading
	}
	if !isPreamble(normaliseMeta(first), firstNonBlank(rest)) {
		return s
	}
	return rest
}

// isPreamble judges a normalised first line, given the next non-blank line.
func isPreamble(line, next string) bool {
	if m := meta().interjection.FindStringIndex(line); m != nil {
		line = line[m[1]:]
		if line == "" {
			return true // "Sure!" alone
		}
	}
	if meta().handOver.MatchString(line) {
		return true
	}
	loc := meta().preambleOpener.FindStringIndex(line)
	if loc == nil {
		return false
	}
	tail := line[loc[1]:]
	announces := meta().deliverable.MatchString(tail) || meta().pointer.MatchString(tail) ||
		(strings.HasSuffix(line, ":") && leadsIntoBlock(next))
	if meta().selfOpener.MatchString(line) {
		// "I have written three novels." is content; "I've drafted the
		// outline below:" is not.
		return announces && meta().selfVerb.MatchString(tail)
	}
	return announces
}

// leadsIntoBlock reports whether a line starts a heading, a fenced block, a
// numbered list or a table: the shapes an announced answer begins with. A
// bullet list is left out on purpose: "Here are the key findings:" over
// bullets reads as the document's own lead-in.
func leadsIntoBlock(line string) bool {
	if _, ok := parseFence(line); ok {
		return true
	}
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "#") || strings.HasPrefix(t, "|") || meta().orderedItem.MatchString(t)
}

func firstNonBlank(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if !isBlank(l) {
			return l
		}
	}
	return ""
}

// stripPostscript removes a last paragraph (or last line) that only
// talks about the answer. Text inside an open code fence is never touched.
func stripPostscript(s string) string {
	lines := strings.Split(s, "\n")
	start := len(lines) - 1
	for start > 0 && !isBlank(lines[start-1]) {
		start--
	}
	if start == 0 {
		// A one-paragraph text: only its last line may go, and only when
		// something stays.
		start = len(lines) - 1
		if start == 0 {
			return s
		}
	}
	if cut, ok := postscriptAt(lines, start); ok {
		return cut
	}
	if start < len(lines)-1 {
		if cut, ok := postscriptAt(lines, len(lines)-1); ok {
			return cut
		}
	}
	return s
}

// postscriptAt removes lines[start:] when they form a chat postscript, and
// with it a thematic break that set it apart.
func postscriptAt(lines []string, start int) (string, bool) {
	para := lines[start:]
	text := strings.Join(para, "\n")
	if utf8.RuneCountInString(text) > maxPostscriptChars || insideFence(lines[:start]) {
		return "", false
	}
	for _, l := range para {
		if structural(l) {
			return "", false
		}
	}
	first := normaliseMeta(para[0])
	chat := meta().postscriptOpener.MatchString(first) || meta().noteAboutSelf.MatchString(first) ||
		(meta().offerOpener.MatchString(first) && meta().firstPerson.MatchString(strings.ToLower(text)))
	if !chat {
		return "", false
	}
	keep := trimBlank(strings.Join(lines[:start], "\n"))
	if i := strings.LastIndexByte(keep, '\n'); i >= 0 && isThematicBreak(keep[i+1:]) && isBlank(lastLine(keep[:i])) {
		keep = trimBlank(keep[:i])
	}
	if isBlank(keep) {
		return "", false
	}
	return keep, true
}

// normaliseMeta lowercases a line and drops the emphasis and quote marks
// that wrap chat lines ("**Note:** I ...", "*Let me know ...*").
func normaliseMeta(line string) string {
	t := strings.TrimSpace(line)
	t = strings.TrimLeft(t, "*_\"'“ ")
	t = strings.ReplaceAll(t, "**", "")
	return strings.ToLower(t)
}

// structural reports whether a line is Markdown structure rather than a
// plain paragraph line: a heading, list item, quote, table row, fence,
// thematic break, HTML, image, link definition or indented code.
func structural(line string) bool {
	if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
		return true
	}
	t := strings.TrimSpace(line)
	if t == "" {
		return false
	}
	switch t[0] {
	case '#', '>', '|', '<':
		return true
	case '-', '*', '+':
		if len(t) == 1 || t[1] == ' ' || t[1] == '\t' {
			return true
		}
	case '!':
		if strings.HasPrefix(t, "![") {
			return true
		}
	case '[':
		if strings.Contains(t, "]:") {
			return true
		}
	}
	if _, ok := parseFence(line); ok {
		return true
	}
	return isThematicBreak(t) || meta().orderedItem.MatchString(t)
}

// isThematicBreak reports a line of three or more '-', '*' or '_' (spaces allowed).
func isThematicBreak(line string) bool {
	t := strings.ReplaceAll(strings.TrimSpace(line), " ", "")
	if len(t) < 3 {
		return false
	}
	return strings.Count(t, t[:1]) == len(t) && strings.ContainsAny(t[:1], "-*_")
}

// isUnderline reports a setext heading underline ("===" or "---").
func isUnderline(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && (strings.Count(t, "=") == len(t) || strings.Count(t, "-") == len(t))
}

// insideFence reports whether lines leave a code fence open.
func insideFence(lines []string) bool {
	var open *fenceLine
	for _, l := range lines {
		f, ok := parseFence(l)
		if !ok {
			continue
		}
		if open == nil {
			open = &f
		} else if f.closes(*open) {
			open = nil
		}
	}
	return open != nil
}

func lastLine(s string) string {
	return s[strings.LastIndexByte(s, '\n')+1:]
}
