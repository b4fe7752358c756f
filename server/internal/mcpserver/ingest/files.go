package ingest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/mcpserver/browser"
)

// ReadFile turns one local file into text a model can read: Markdown and
// text as they are, HTML reduced to its main content as Markdown, PDF as
// its text. max caps the characters returned.
func ReadFile(p string, max int) (string, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	var text string
	switch strings.ToLower(filepath.Ext(p)) {
	case ".html", ".htm":
		page, err := browser.PageFromHTML("file:///"+filepath.Base(p), bytes.NewReader(data))
		if err != nil {
			return "", fmt.Errorf("unable to read the HTML: %w", err)
		}
		text = page.Markdown
		if page.Title != "" && !strings.HasPrefix(text, "# ") {
			text = "# " + page.Title + "\n\n" + text
		}
	case ".pdf":
		if text, err = pdfText(data); err != nil {
			return "", err
		}
	default:
		if document.IsBinary(data) {
			return "", fmt.Errorf("a binary file; ingest reads Markdown, text, HTML and PDF")
		}
		text = string(data)
	}
	if max > 0 && len(text) > max {
		text = cutRunes(text, max) + fmt.Sprintf("\n[... %d more characters not shown]", len(text)-max)
	}
	return text, nil
}

// pdfText extracts a PDF's text, guarding against the parser panicking on
// a malformed file.
func pdfText(data []byte) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("unable to read the PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("unable to read the PDF: %w", err)
	}
	tr, err := r.GetPlainText()
	if err != nil {
		return "", fmt.Errorf("unable to read the PDF's text: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(tr, 16<<20))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}
