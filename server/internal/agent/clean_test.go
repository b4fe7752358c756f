package agent

import (
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	const doc = "# Plan\n\n- one\n- two"
	tests := []struct {
		name, in, want string
	}{
		// Thinking.
		{"think block", "<think>\nLet me plan.\n</think>\n\n# Plan", "# Plan"},
		{"thinking block", "<thinking>plan</thinking>\n" + doc, doc},
		{"upper-case tags", "<THINK>x</THINK>\n" + doc, doc},
		{"two leading blocks", "<think>a</think>\n<think>b</think>\n" + doc, doc},
		{"unclosed leading block is all thinking", "<think>\nI should search first, then", ""},
		{"orphan close tag", "the user wants a plan\n</think>\n\n" + doc, doc},
		{"think tags inside text are content", "Models wrap reasoning in <think>...</think> tags.", "Models wrap reasoning in <think>...</think> tags."},
		{"quoted close tag is content", "Use `</think>` to end a block.\nMore text.", "Use `</think>` to end a block.\nMore text."},

		// Preambles.
		{"here is the outline", "Here is the outline:\n\n" + doc, doc},
		{"sure plus here is", "Sure! Here's the revised draft.\n\n" + doc, doc},
		{"interjection alone", "Certainly!\n" + doc, doc},
		{"okay I've drafted", "Okay, I've drafted the outline below:\n" + doc, doc},
		{"let me write", "Let me write the report:\n\n# Report\n\nBody.", "# Report\n\nBody."},
		{"here you go", "Here you go!\n\n" + doc, doc},
		{"here are + colon + heading", "Here are the key findings:\n\n## Finding 1\n\nText.", "## Finding 1\n\nText."},
		{"here are + colon + numbered list", "Here are the objectives:\n\n1. Install.\n2. Call it.", "1. Install.\n2. Call it."},
		{"below are + colon + table", "Below are the learning goals:\n| goal |\n|---|\n| a |", "| goal |\n|---|\n| a |"},
		{"here are without colon is content", "Here are three ways to start.\n\n1. One.", "Here are three ways to start.\n\n1. One."},
		{"as requested", "As requested, here is the final version.\n\n" + doc, doc},
		{"bold preamble", "**Here is your outline:**\n\n" + doc, doc},
		{"two preamble lines", "Sure!\nHere is the outline:\n\n" + doc, doc},
		{"CRLF line ends", "Here is the outline:\r\n\r\n# Plan\r\n\r\n- one\r\n- two\r\n", doc},

		// Preambles that must stay.
		{"story opening with interjection", "Of course, the rain had stopped by then.\n\nShe left.", "Of course, the rain had stopped by then.\n\nShe left."},
		{"here is where the story begins", "Here is where the story begins.\n\nIt was cold.", "Here is where the story begins.\n\nIt was cold."},
		{"here's what you need to know", "Here's what you need to know about Go modules.\n\nThey version code.", "Here's what you need to know about Go modules.\n\nThey version code."},
		{"here are + colon + list", "Here are the key findings:\n\n- a\n- b", "Here are the key findings:\n\n- a\n- b"},
		{"I have written novels", "I have written three novels.\n\nThe first was short.", "I have written three novels.\n\nThe first was short."},
		{"heading first line", "# Here is the outline\n\nText.", "# Here is the outline\n\nText."},
		{"setext heading", "Here is the outline\n===\n\nText.", "Here is the outline\n===\n\nText."},
		{"list item", "- Here is the outline:\n- two", "- Here is the outline:\n- two"},
		{"only a preamble-like line", "Here is the outline:", "Here is the outline:"},
		{"long first line", "Here is the outline " + strings.Repeat("of many things ", 20) + "\n\n" + doc, "Here is the outline " + strings.Repeat("of many things ", 20) + "\n\n" + doc},
		{"great as adjective", "Great Expectations is a novel.\n\nBy Dickens.", "Great Expectations is a novel.\n\nBy Dickens."},
		{"as requested by someone", "As requested by the board, the budget rose.\n\nDetails follow.", "As requested by the board, the budget rose.\n\nDetails follow."},

		// Postscripts.
		{"let me know", doc + "\n\nLet me know if you'd like any changes!", doc},
		{"I hope this helps", doc + "\n\nI hope this helps!", doc},
		{"two postscripts", doc + "\n\nI hope this helps!\n\nLet me know if you want more detail.", doc},
		{"note I", doc + "\n\nNote: I kept each section under 200 words.", doc},
		{"bold note this draft", doc + "\n\n**Note:** This draft follows the style guide.", doc},
		{"offer with first person", doc + "\n\nIf you'd like, I can expand section 3.", doc},
		{"italic postscript", doc + "\n\n*Let me know if anything should change.*", doc},
		{"postscript after a rule", doc + "\n\n---\n\nI hope this helps! Let me know if you need more.", doc},
		{"postscript line after a list", "- one\n- two\nLet me know if you want a third item.", "- one\n- two"},
		{"postscript after prose line", "The plan has two steps.\nLet me know if this works.", "The plan has two steps."},

		// Postscripts that must stay.
		{"README support line", "# Tool\n\nRun it.\n\nIf you need help, contact support@example.com.", "# Tool\n\nRun it.\n\nIf you need help, contact support@example.com."},
		{"blog post ending", "# Post\n\nBody.\n\nI hope you enjoyed this post.", "# Post\n\nBody.\n\nI hope you enjoyed this post."},
		{"how-to last line", "Configure the server.\nIf you want TLS, set tls = true.", "Configure the server.\nIf you want TLS, set tls = true."},
		{"postscript as list item", "# Tasks\n\n- Let me know if the build fails", "# Tasks\n\n- Let me know if the build fails"},
		{"postscript as quote", "# Q\n\n> I hope this helps", "# Q\n\n> I hope this helps"},
		{"postscript as heading", "# Doc\n\n## Let me know if you have questions", "# Doc\n\n## Let me know if you have questions"},
		{"postscript inside open fence", "# Doc\n\n```\nexample\n\nLet me know if this works.", "# Doc\n\n```\nexample\n\nLet me know if this works."},
		{"note about the deadline", doc + "\n\nNote: the deadline is Friday.", doc + "\n\nNote: the deadline is Friday."},
		{"only a postscript", "Let me know if you'd like changes.", "Let me know if you'd like changes."},
		{"feel free without first person", "# Contributing\n\nFeel free to open an issue.", "# Contributing\n\nFeel free to open an issue."},
		{"setext heading kept before postscript", "Title\n---\n\nLet me know if this works.", "Title\n---"},

		// Fences.
		{"markdown fence", "```markdown\n" + doc + "\n```", doc},
		{"bare fence", "```\n" + doc + "\n```", doc},
		{"md fence with preamble and postscript", "Sure! Here is the outline:\n\n```md\n" + doc + "\n```\n\nLet me know if you want changes.", doc},
		{"tilde fence", "~~~markdown\n" + doc + "\n~~~", doc},
		{"nested fence with info", "```markdown\n# Doc\n\n```go\nx := 1\n```\n\nEnd.\n```", "# Doc\n\n```go\nx := 1\n```\n\nEnd."},
		{"longer outer fence", "````markdown\n# Doc\n\n```\ncode\n```\n````", "# Doc\n\n```\ncode\n```"},
		{"preamble inside fence", "```markdown\nHere is the outline:\n\n" + doc + "\n```", doc},

		// Fences that must stay.
		{"go fence is content", "```go\nfunc main() {}\n```", "```go\nfunc main() {}\n```"},
		{"two separate blocks", "```\na\n```\n\ntext\n\n```\nb\n```", "```\na\n```\n\ntext\n\n```\nb\n```"},
		{"fence not at the end", "```markdown\n# Doc\n```\n\nMore text.", "```markdown\n# Doc\n```\n\nMore text."},
		{"ambiguous bare inner fence", "```markdown\n# Doc\n```\ncode\n```\n```", "```markdown\n# Doc\n```\ncode\n```\n```"},

		// Whitespace and plain answers.
		{"plain answer", doc, doc},
		{"surrounding blank lines", "\n\n  \n" + doc + "\n\n\n", doc},
		{"indented first line kept", "\n    code block\n\nText.", "    code block\n\nText."},
		{"empty", "", ""},
		{"json", "{\n  \"ok\": true\n}", "{\n  \"ok\": true\n}"},
		{"front matter", "---\ntitle: Plan\n---\n\n# Plan", "---\ntitle: Plan\n---\n\n# Plan"},
		{"thinking, preamble, fence and postscript", "<think>plan it</think>\nSure! Here is the draft:\n\n```markdown\n" + doc + "\n```\n\nI hope this helps!", doc},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Clean(tc.in); got != tc.want {
				t.Errorf("Clean(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}
