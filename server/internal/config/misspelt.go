package config

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/icm-tool/icm/server/internal/suggest"
)

// Misspelling is a key of config.toml icm does not read that is a slip of
// one it does: "model.temprature" for "model.temperature". icm does not
// apply it (the run uses the rest of the settings), but judges whether a
// stage's settings changed as if it were spelt right (Meant), so a slip
// of the keys makes no stage stale.
type Misspelling struct {
	// Key is the key as written, Meant the key it is a slip of.
	Key, Meant string
	// Value is what the file gives the key.
	Value any
	// Line is the key's line in the file.
	Line int
}

// String says what a misspelling means, for a person.
func (m Misspelling) String() string {
	_, near := splitPath(m.Meant)
	return fmt.Sprintf("icm does not read %q, so the setting is not applied: did you mean %q? (no stage goes stale over it)", m.Key, near)
}

// meantTables are the tables whose keys Meant reads under the name
// meant: each is one fixed set of keys (a server's table or an array of
// them is not).
var meantTables = map[string]bool{"model": true, "workflow": true, "workspace": true, "test": true, "check": true, "reads": true}

// nearKey is the known key an unknown dotted key is a slip of, within its
// table ("temperature" for "model.temprature"), or "". A key at the top
// is compared with the tables.
func nearKey(path string) string {
	table, name := splitPath(path)
	return suggest.Nearest(name, tableKeys(table))
}

// tableKeys names the keys of a known table (the tables, at the top); nil
// for a table icm does not read.
func tableKeys(table string) []string {
	if table == "" {
		return []string{"model", "workflow", "mcp"}
	}
	if _, known := Tables[table]; !known {
		return nil
	}
	var names []string
	for _, k := range KeysOf(table) {
		names = append(names, k.Name)
	}
	return names
}

// misspellings lists the unknown keys of a fixed table that are a slip
// of a key the file does not set, with their values; data is the text
// md was decoded from.
func misspellings(data []byte, md toml.MetaData, unknown []string) []Misspelling {
	var raw map[string]any
	var out []Misspelling
	for _, key := range unknown {
		table, name := splitPath(key)
		near := nearKey(key)
		if near == "" || !meantTables[table] || md.IsDefined(append(strings.Split(table, "."), near)...) {
			continue
		}
		if raw == nil {
			if _, err := toml.Decode(string(data), &raw); err != nil {
				return nil
			}
		}
		t, _ := raw[table].(map[string]any)
		if v, ok := t[name]; ok {
			e, _ := indexEntries(Entries(data)).find(key)
			out = append(out, Misspelling{Key: key, Meant: table + "." + near, Value: v, Line: e.Line})
		}
	}
	return out
}

// Meant returns the settings as the person meant them: each misspelt key
// read as the key it is a slip of. A value the key cannot take leaves the
// settings as they are.
func (c Config) Meant() Config {
	if len(c.Misspelt) == 0 {
		return c
	}
	doc := map[string]map[string]any{}
	for _, m := range c.Misspelt {
		table, name := splitPath(m.Meant)
		if doc[table] == nil {
			doc[table] = map[string]any{}
		}
		doc[table][name] = m.Value
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(doc); err != nil {
		return c
	}
	meant := c
	if _, err := toml.Decode(buf.String(), &meant); err != nil {
		return c
	}
	return meant
}
