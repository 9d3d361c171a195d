package jsonschema

import (
	"os"
	"strings"
	"testing"
)

const testSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["version", "items"],
  "properties": {
    "version": {"type": "integer", "enum": [2]},
    "items": {"type": "array", "items": {"$ref": "#/$defs/item"}},
    "share": {"type": "number", "minimum": 0},
    "sizes": {"type": ["object", "null"]}
  },
  "$defs": {
    "item": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}, "additionalProperties": false}
  }
}`

func TestValidate(t *testing.T) {
	s, err := Parse([]byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	for doc, want := range map[string]string{
		`{"version": 2, "items": [{"name": "a"}], "share": 0.5, "sizes": null, "new": 1}`: "",
		`{"version": 2, "items": null}`:                            `$.items: null, want array`,
		`{"version": 3, "items": []}`:                              `$.version: 3 is not one of [2]`,
		`{"items": [{"name": 1}]}`:                                 `$.items[0].name: integer, want string | $: "version" is missing`,
		`{"version": 2, "items": [{"name": "a", "x": true}]}`:      `$.items[0]: "x" is not allowed`,
		`{"version": 2, "items": [], "share": -1, "sizes": "big"}`: `$.share: -1 is below 0 | $.sizes: string, want [object null]`,
		`{"version": 2.5, "items": []}`:                            `$.version: number, want integer`,
		`[1]`:                                                      `$: array, want object`,
		`{"version":`:                                              `$: unexpected EOF`,
	} {
		if got := strings.Join(s.Validate([]byte(doc)), " | "); got != want {
			t.Errorf("%s:\n got %s\nwant %s", doc, got, want)
		}
	}
}

// A schema that uses more than the subset is refused, never half-checked.
func TestParseRefusesTheUnknown(t *testing.T) {
	for _, bad := range []string{
		`{"type": "object", "pattern": "^a"}`,
		`{"properties": {"a": {"oneOf": []}}}`,
		`{"properties": {"a": {"$ref": "#/$defs/none"}}}`,
		`{"additionalProperties": true}`,
		`{"items": false}`,
		`not json`,
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}

// The repository's schema is in the subset.
func TestRepositorySchemaParses(t *testing.T) {
	b, err := os.ReadFile("../../docs/scan.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(b); err != nil {
		t.Fatal(err)
	}
}

func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{"version": 2, "items": [{"name": "a"}]}`))
	f.Add([]byte(`{"items": [[[{}]]], "share": 1e400}`))
	s, err := Parse([]byte(testSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		s.Validate(doc)
	})
}
