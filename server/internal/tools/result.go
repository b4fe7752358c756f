package tools

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// Result is the outcome of one tool call as the model will see it.
type Result struct {
	// Name is the exposed tool name the model called.
	Name string
	// Server and Tool identify the tool on its server ("" for an unknown name).
	Server string
	Tool   string
	// Text is what to send back to the model.
	Text string
	// IsError is set for unknown tools, invalid arguments, errors the
	// tool itself reported (MCP isError) and server failures.
	IsError  bool
	Duration time.Duration
	// Size is the length of the full text in bytes, before any cut.
	Size int
	// Truncated is set when Text was cut to Options.MaxResultBytes.
	Truncated bool
}

// renderContent joins text content and describes the rest, so the model
// knows an image or a file was returned even though it cannot see it.
func renderContent(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if s := describeContent(c); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

func describeContent(c mcp.Content) string {
	switch v := c.(type) {
	case mcp.TextContent:
		return v.Text
	case *mcp.TextContent:
		return v.Text
	case mcp.ImageContent:
		return fmt.Sprintf("[image: %s, %s]", v.MIMEType, decodedSize(v.Data))
	case *mcp.ImageContent:
		return fmt.Sprintf("[image: %s, %s]", v.MIMEType, decodedSize(v.Data))
	case mcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %s]", v.MIMEType, decodedSize(v.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %s]", v.MIMEType, decodedSize(v.Data))
	case mcp.ResourceLink:
		return describeLink(v)
	case *mcp.ResourceLink:
		return describeLink(*v)
	case mcp.EmbeddedResource:
		return describeResource(v.Resource)
	case *mcp.EmbeddedResource:
		return describeResource(v.Resource)
	default:
		return fmt.Sprintf("[%T content not shown]", c)
	}
}

func describeLink(l mcp.ResourceLink) string {
	s := fmt.Sprintf("[resource link: %s <%s>", l.Name, l.URI)
	if l.MIMEType != "" {
		s += ", " + l.MIMEType
	}
	if l.Description != "" {
		s += ": " + l.Description
	}
	return s + "]"
}

func describeResource(r mcp.ResourceContents) string {
	switch v := r.(type) {
	case mcp.TextResourceContents:
		return fmt.Sprintf("[resource %s]\n%s", v.URI, v.Text)
	case *mcp.TextResourceContents:
		return fmt.Sprintf("[resource %s]\n%s", v.URI, v.Text)
	case mcp.BlobResourceContents:
		return fmt.Sprintf("[resource %s: %s, %s]", v.URI, v.MIMEType, decodedSize(v.Blob))
	case *mcp.BlobResourceContents:
		return fmt.Sprintf("[resource %s: %s, %s]", v.URI, v.MIMEType, decodedSize(v.Blob))
	default:
		return "[embedded resource not shown]"
	}
}

func decodedSize(b64 string) string {
	return fmt.Sprintf("%d bytes", base64.StdEncoding.DecodedLen(len(b64)))
}

// capText cuts s to at most max bytes on a rune boundary, keeping the head
// and the tail with a marker between, since both ends of long output tend to
// matter (the start of a page, the end of a log).
func capText(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	const markerFormat = "\n[... %d bytes cut ...]\n"
	// The marker is sized for the largest number it can hold, so the
	// result never exceeds max.
	keep := max - len(fmt.Sprintf(markerFormat, len(s)))
	if keep < 2 {
		return cutRunes(s, max), true
	}
	head := cutRunes(s, keep/2)
	tailStart := len(s) - (keep - len(head))
	for tailStart < len(s) && !utf8.RuneStart(s[tailStart]) {
		tailStart++
	}
	tail := s[tailStart:]
	return head + fmt.Sprintf(markerFormat, len(s)-len(head)-len(tail)) + tail, true
}

// cutRunes returns the longest prefix of s of at most n bytes that does not
// split a character.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
