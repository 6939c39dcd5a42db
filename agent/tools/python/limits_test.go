package python

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestSchemaLimits: the limits and choices a schema states (constant
// JSON) are the ones the code checks.
func TestSchemaLimits(t *testing.T) {
	for _, tc := range []struct {
		schema string
		path   []string
		want   any
	}{
		{ToolSchema, []string{"properties", "timeout", "maximum"}, maxTimeout},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.schema), &v); err != nil {
			t.Fatal(err)
		}
		for _, k := range tc.path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		want, _ := json.Marshal(tc.want)
		var w any
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(v, w) {
			t.Errorf("schema at %v = %v, want %v", tc.path, v, w)
		}
	}
}
