// Package schematest is test support for the built-in tools: it checks
// that a value a tool's constant JSON schema states (a limit, a list of
// choices) is the one its code enforces.
package schematest

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Limit is a value a schema states: the one at Path (object keys, from
// the top) in Schema must be Want, compared as JSON values.
type Limit struct {
	Schema string
	Path   []string
	Want   any
}

// CheckAll checks each limit.
func CheckAll(t testing.TB, limits []Limit) {
	t.Helper()
	for _, l := range limits {
		Check(t, l.Schema, l.Path, l.Want)
	}
}

// Check fails t unless the value at path in schema (object keys, from
// the top) is want, compared as JSON values.
func Check(t testing.TB, schema string, path []string, want any) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(schema), &v); err != nil {
		t.Fatal(err)
	}
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var w any
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v, w) {
		t.Errorf("schema at %v = %v, want %v", path, v, w)
	}
}
