package browser

import (
	"fmt"
	"strings"
)

// The prompts below go to small local models: short sentences, one job
// each, and the page always fenced as data.

const mapSummarySystem = `You take notes on one part of a web page for a reader.
Write the facts, figures, names and conclusions this part contains, in plain sentences or short bullet points.
Leave out site navigation, menus, cookie notices, ads, sign-in or subscription prompts, share buttons and footers.
Do not add anything the text does not say.
If this part holds nothing but such page chrome, or nothing that bears on the question, answer with the single word NOTHING.`

const oneSummarySystem = `You summarise a web page for a reader.
Write a clear, complete summary of what the page says: its facts, figures, names and conclusions.
Leave out site navigation, menus, cookie notices, ads, sign-in or subscription prompts, share buttons and footers.
Do not add anything the page does not say.`

const reduceSummarySystem = `You write one answer from notes a colleague took while reading a web page.
Merge the notes into a single clear, well-ordered summary; remove repetition.
Drop any note about site navigation, menus, cookie notices, ads, sign-in or subscription prompts, share buttons and footers.
Write as if you had read the page yourself: never mention notes, parts, sections, chunks or excerpts.
Do not add anything the notes do not say.`

const extractSystem = `You extract data from one part of a web page.
Answer with one JSON object that matches the given JSON schema.
Use only what this part of the page states. If a field is not stated here, set it to null (an empty list for list fields). Never guess or invent values.`

// focus is the line that tells the model what the reader wants to know.
func focus(question string) string {
	if strings.TrimSpace(question) == "" {
		return "The reader wants a general summary of the page."
	}
	return fmt.Sprintf("The reader's question: %s\nFocus on what answers it.", strings.TrimSpace(question))
}

func mapSummaryPrompt(url, question string, i, n int, chunk string) string {
	return fmt.Sprintf("%s\n\n%s", focus(question), fence(fmt.Sprintf("part %d of %d of the page %s", i+1, n, url), chunk))
}

func oneSummaryPrompt(url, question, text string) string {
	return fmt.Sprintf("%s\n\n%s", focus(question), fence("the page "+url, text))
}

func reducePrompt(url, question string, notes []string) string {
	var sb strings.Builder
	for _, n := range notes {
		sb.WriteString("- ")
		sb.WriteString(strings.ReplaceAll(strings.TrimSpace(n), "\n", "\n  "))
		sb.WriteString("\n")
	}
	return fmt.Sprintf("%s\n\n%s", focus(question), fence("notes taken from the page "+url, sb.String()))
}

func extractPrompt(url, schema string, i, n int, chunk string) string {
	return fmt.Sprintf("JSON schema of the answer:\n%s\n\n%s", schema, fence(fmt.Sprintf("part %d of %d of the page %s", i+1, n, url), chunk))
}

// isNothing reports whether a map answer says the part held nothing useful.
func isNothing(s string) bool {
	t := strings.Trim(strings.TrimSpace(s), ".*_ \"'`")
	return t == "" || strings.EqualFold(t, "NOTHING")
}
