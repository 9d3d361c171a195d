// Package jsonschema checks a JSON document against a JSON Schema, for the subset of the
// standard (draft 2020-12) that recomp's own schemas use (docs/scan.schema.json): type (one or
// a list), required, properties, additionalProperties (a schema, or false), items, enum, minimum,
// $ref to "#/$defs/NAME", and the annotations (title, description, $schema, $id) it ignores. A
// keyword outside the subset is an error of the schema, never silently passed. The tests use it
// on every scan and guard report they make.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Schema is a schema read by Parse.
type Schema struct {
	root map[string]any
}

// Parse reads a schema and checks that it uses only the subset this package knows.
func Parse(b []byte) (*Schema, error) {
	var root map[string]any
	if err := json.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("schema: %v", err)
	}
	s := &Schema{root: root}
	if err := s.check(root, "#"); err != nil {
		return nil, err
	}
	return s, nil
}

var known = map[string]bool{"type": true, "required": true, "properties": true, "additionalProperties": true, "items": true,
	"enum": true, "minimum": true, "$ref": true, "$defs": true, "title": true, "description": true, "$schema": true, "$id": true}

// check refuses keywords outside the subset, in s and below it.
func (s *Schema) check(node map[string]any, at string) error {
	for k, v := range node {
		if !known[k] {
			return fmt.Errorf("schema: %s: keyword %q is not supported", at, k)
		}
		switch k {
		case "properties", "$defs":
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("schema: %s/%s: not an object", at, k)
			}
			for name, sub := range m {
				sm, ok := sub.(map[string]any)
				if !ok {
					return fmt.Errorf("schema: %s/%s/%s: not a schema", at, k, name)
				}
				if err := s.check(sm, at+"/"+k+"/"+name); err != nil {
					return err
				}
			}
		case "items", "additionalProperties":
			if sm, ok := v.(map[string]any); ok {
				if err := s.check(sm, at+"/"+k); err != nil {
					return err
				}
			} else if b, ok := v.(bool); !ok || k == "items" || b {
				return fmt.Errorf("schema: %s/%s: a schema (or false) is expected", at, k)
			}
		case "$ref":
			if _, err := s.resolve(v); err != nil {
				return fmt.Errorf("schema: %s: %v", at, err)
			}
		}
	}
	return nil
}

func (s *Schema) resolve(ref any) (map[string]any, error) {
	r, _ := ref.(string)
	name, ok := strings.CutPrefix(r, "#/$defs/")
	defs, _ := s.root["$defs"].(map[string]any)
	def, found := defs[name].(map[string]any)
	if !ok || !found {
		return nil, fmt.Errorf("$ref %q does not name a definition", r)
	}
	return def, nil
}

// Validate checks the JSON document b: every place that breaks the schema, as "PATH: what",
// sorted; none when it conforms.
func (s *Schema) Validate(b []byte) []string {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil {
		return []string{"$: " + err.Error()}
	}
	var out []string
	s.validate(s.root, doc, "$", &out)
	sort.Strings(out)
	return out
}

func (s *Schema) validate(node map[string]any, v any, at string, out *[]string) {
	if ref, ok := node["$ref"]; ok {
		def, _ := s.resolve(ref)
		s.validate(def, v, at, out)
	}
	if t, ok := node["type"]; ok && !hasType(t, v) {
		*out = append(*out, fmt.Sprintf("%s: %s, want %v", at, typeOf(v), t))
		return
	}
	if e, ok := node["enum"].([]any); ok && !slices.ContainsFunc(e, func(x any) bool { return fmt.Sprint(x) == fmt.Sprint(v) }) {
		*out = append(*out, fmt.Sprintf("%s: %v is not one of %v", at, v, e))
	}
	if m, ok := node["minimum"].(float64); ok {
		if n, isNum := v.(json.Number); isNum {
			if f, err := n.Float64(); err == nil && f < m {
				*out = append(*out, fmt.Sprintf("%s: %v is below %v", at, v, m))
			}
		}
	}
	switch v := v.(type) {
	case map[string]any:
		s.object(node, v, at, out)
	case []any:
		if items, ok := node["items"].(map[string]any); ok {
			for i, x := range v {
				s.validate(items, x, fmt.Sprintf("%s[%d]", at, i), out)
			}
		}
	}
}

func (s *Schema) object(node map[string]any, v map[string]any, at string, out *[]string) {
	req, _ := node["required"].([]any)
	for _, r := range req {
		if _, ok := v[fmt.Sprint(r)]; !ok {
			*out = append(*out, fmt.Sprintf("%s: %q is missing", at, r))
		}
	}
	props, _ := node["properties"].(map[string]any)
	for k, x := range v {
		if p, ok := props[k].(map[string]any); ok {
			s.validate(p, x, at+"."+k, out)
			continue
		}
		switch extra := node["additionalProperties"].(type) {
		case bool:
			*out = append(*out, fmt.Sprintf("%s: %q is not allowed", at, k))
		case map[string]any:
			s.validate(extra, x, at+"."+k, out)
		}
	}
}

// hasType says whether v is of the type (or one of the types) t names.
func hasType(t any, v any) bool {
	switch t := t.(type) {
	case string:
		got := typeOf(v)
		return got == t || t == "number" && got == "integer"
	case []any:
		return slices.ContainsFunc(t, func(x any) bool { return hasType(x, v) })
	}
	return false
}

func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if strings.ContainsAny(v.String(), ".eE") {
			return "number"
		}
		return "integer"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
