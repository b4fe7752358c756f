package browser

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Extract returns the extract tool.
func Extract(pages PageLoader, e Extractor, cache *Cache, fingerprint string) (mcp.Tool, server.ToolHandlerFunc) {
	tool := mcp.NewTool("extract",
		mcp.WithDescription(`Read a whole web page and pull out specific values as JSON. Describe the fields you want as a JSON Schema object, e.g. {"type":"object","properties":{"price":{"type":"number"},"authors":{"type":"array","items":{"type":"string"}}}}, or simply as {"field name": "what it is"}. The answer has every field; a field the page does not state is null (never guessed). Use summarize instead when you want prose rather than fields.`),
		mcp.WithString("url", mcp.Required(), mcp.Description("Full address of the page, starting with http:// or https://.")),
		mcp.WithObject("schema", mcp.Required(), mcp.Description("The fields to extract: a JSON Schema object with properties, or {\"field\": \"description\"}.")),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(true),
	)
	return tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		url, bad := urlArg(req)
		if bad != nil {
			return bad, nil
		}
		if e == nil {
			return toolError(url, ErrNoModel), nil
		}
		schema, ok := schemaArg(req.GetArguments()["schema"])
		if !ok {
			return mcp.NewToolResultError(`the "schema" argument is required: a JSON object naming the fields to extract, e.g. {"type":"object","properties":{"title":{"type":"string"}}}`), nil
		}
		if _, err := newExtraction(schema); err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		p, err := pages.Load(ctx, url)
		if err != nil {
			return toolError(url, err), nil
		}
		key := cacheKey("extract", fingerprint, p.URL, canonical(schema))
		var out map[string]any
		if !cache.Get(key, &out) {
			out, err = e.Extract(ctx, p, schema)
			if err != nil {
				return toolError(url, err), nil
			}
			_ = cache.Put(key, out)
		}
		text, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(string(text)), nil
	}
}

// schemaArg reads the schema argument, which clients send as an object
// and small models sometimes as a JSON string.
func schemaArg(v any) (map[string]any, bool) {
	switch s := v.(type) {
	case map[string]any:
		return s, len(s) > 0
	case string:
		var m map[string]any
		if json.Unmarshal([]byte(s), &m) == nil && len(m) > 0 {
			return m, true
		}
	}
	return nil, false
}
