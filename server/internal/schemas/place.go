package schemas

import (
	"bytes"
	"encoding/json"
	"net/url"
)

// refKeywords are the keywords whose value the library may load.
var refKeywords = map[string]bool{"$ref": true, "$dynamicRef": true, "$recursiveRef": true, "$schema": true}

// refAt finds in raw, the schema at address base, the reference that
// resolves to target: its line, its keyword and its text as written. A
// reference not found (one resolved against a nested $id) is placed
// nowhere: line 0, "$ref" and the target itself.
func refAt(raw []byte, base, target string) (line int, keyword, written string) {
	b, err := url.Parse(base)
	if err != nil {
		return 0, "$ref", target
	}
	want, err := url.Parse(target)
	if err != nil {
		return 0, "$ref", target
	}
	found := func(v string) bool {
		r, err := url.Parse(v)
		if err != nil {
			return false
		}
		got := b.ResolveReference(r)
		return got.Scheme == want.Scheme && got.Host == want.Host && got.Path == want.Path
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	// Each open object or array, innermost last; for an object, the key
	// whose value comes next ("" while a key is awaited).
	type level struct {
		object bool
		key    string
		inKey  bool
	}
	var stack []*level
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0, "$ref", target
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.inKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			top.key, top.inKey = tok.(string), false
			continue
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '}' || v == ']' {
				stack = stack[:len(stack)-1]
				continue
			}
			if top != nil && top.object {
				top.inKey = true
			}
			stack = append(stack, &level{object: v == '{', inKey: v == '{'})
			continue
		case string:
			if top != nil && top.object && refKeywords[top.key] && found(v) {
				return 1 + bytes.Count(raw[:dec.InputOffset()], []byte("\n")), top.key, v
			}
		}
		if top != nil && top.object {
			top.inKey = true
		}
	}
}
