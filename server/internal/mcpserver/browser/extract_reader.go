package browser

import (
	"context"
	"encoding/json"
	"fmt"
)

// Extract reads the fields schema names from the whole page. The answer
// has every field of the schema, null where the page does not say.
func (r *Reader) Extract(ctx context.Context, p *Page, schema map[string]any) (map[string]any, error) {
	e, err := newExtraction(schema)
	if err != nil {
		return nil, err
	}
	format, err := json.Marshal(e.nullable)
	if err != nil {
		return nil, fmt.Errorf("unable to encode the schema: %w", err)
	}
	chunks := r.chunks(p)
	if len(chunks) == 0 {
		return nil, fmt.Errorf("%s has no readable text", p.URL)
	}
	parts := make([]map[string]any, len(chunks))
	errs := r.each(ctx, len(chunks), func(ctx context.Context, i int) error {
		out, err := r.chat(ctx, extractSystem, extractPrompt(p.URL, string(format), i, len(chunks), chunks[i]), format)
		if err != nil {
			return err
		}
		m, err := decodeObject(out)
		if err != nil {
			return err
		}
		parts[i] = e.clean(m)
		return nil
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	failed, first := firstErr(errs)
	if failed == len(chunks) {
		return nil, first
	}
	for i, err := range errs {
		if err != nil {
			r.log().Warn("extract: a part of the page failed; going on without it", "url", p.URL, "part", i+1, "of", len(chunks), "err", err)
		}
	}
	out := e.merge(parts)
	if err := e.check.Validate(toValidatable(out)); err != nil {
		return nil, fmt.Errorf("the merged answer does not match the schema: %w", err)
	}
	return out, nil
}

// toValidatable round-trips v through JSON so the validator sees the
// types it expects.
func toValidatable(v map[string]any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	m, err := decodeObject(string(b))
	if err != nil {
		return v
	}
	return m
}
