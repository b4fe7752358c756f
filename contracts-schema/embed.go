// Package contractsschema embeds the JSON Schema of icm's parsed contracts
// and of `icm check --json`, so Go code and tests can read it.
package contractsschema

import _ "embed"

// Schema is contract.schema.json.
//
//go:embed contract.schema.json
var Schema []byte

// Grammar is grammar.md, the human reference of the contract grammar.
//
//go:embed grammar.md
var Grammar string
