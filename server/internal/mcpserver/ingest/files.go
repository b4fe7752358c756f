package ingest

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/icm-tool/icm/server/internal/document"
	"github.com/icm-tool/icm/server/internal/mcpserver/browser"
	"github.com/icm-tool/icm/server/internal/workspace"
)

// maxWholeFile caps the HTML and PDF files read: those are parsed whole,
// so unlike text they cannot be read only as far as the cap needs.
const maxWholeFile = 16 << 20

// readIn turns the file name of root into text a model can read:
// Markdown and text as they are, HTML reduced to its main content as
// Markdown, PDF as its text; max caps the characters returned. Text is streamed:
// only as much as max (and the check for binary content) needs is read,
// however large the file, and the rest is counted from its size.
func readIn(root *workspace.Root, name string, max int) (string, error) {
	var text string
	switch strings.ToLower(filepath.Ext(name)) {
	case ".html", ".htm":
		data, err := root.ReadFile(name)
		if err != nil {
			return "", err
		}
		page, err := browser.PageFromHTML("file:///"+filepath.Base(name), bytes.NewReader(data))
		if err != nil {
			return "", fmt.Errorf("unable to read the HTML: %w", err)
		}
		text = page.Markdown
		if page.Title != "" && !strings.HasPrefix(text, "# ") {
			text = "# " + page.Title + "\n\n" + text
		}
	case ".pdf":
		data, err := root.ReadFile(name)
		if err != nil {
			return "", err
		}
		if text, err = pdfText(data); err != nil {
			return "", err
		}
	default:
		head, size, err := readHead(root, name, max)
		if err != nil {
			return "", err
		}
		if document.IsBinary(head) {
			return "", fmt.Errorf("a binary file; ingest reads Markdown, text, HTML and PDF")
		}
		if max > 0 && len(head) > max+utfMax {
			head = head[:max+utfMax] // the probe for binary read further than shown
		}
		return capText(string(head), size, max), nil
	}
	return capText(text, int64(len(text)), max), nil
}

// readHead reads the first bytes of a regular file: max of them (all when
// max is 0, up to the root's cap) and at least enough to tell binary from
// text. It returns them with the file's size.
func readHead(root *workspace.Root, name string, limit int) ([]byte, int64, error) {
	f, info, err := root.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if limit <= 0 {
		data, err := root.ReadFile(name)
		return data, int64(len(data)), err
	}
	// A few bytes more than the limit, so a character cut by it is whole.
	n := int64(max(limit+utfMax, binaryProbe))
	data, err := io.ReadAll(io.LimitReader(f, n))
	if err != nil {
		return nil, 0, fmt.Errorf("unable to read %s: %w", name, err)
	}
	return data, max(info.Size(), int64(len(data))), nil
}

const (
	utfMax      = 4
	binaryProbe = 8192
)

// capText cuts text of total bytes (text may be its start) to max bytes,
// saying how much was left out.
func capText(text string, total int64, limit int) string {
	if limit > 0 && total > int64(limit) {
		return cutRunes(text, limit) + fmt.Sprintf("\n[... %d more characters not shown]", total-int64(limit))
	}
	return text
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
