package plan

import (
	"testing"

	"github.com/zut-go/zut/agent/internal/schematest"
)

// TestSchemaLimits: the limits and choices a schema states (constant
// JSON) are the ones the code checks.
func TestSchemaLimits(t *testing.T) {
	schematest.CheckAll(t, []schematest.Limit{
		{Schema: ToolSchema, Path: []string{"properties", "items", "maxItems"}, Want: MaxItems},
		{Schema: ToolSchema, Path: []string{"properties", "items", "items", "properties", "status", "enum"}, Want: statuses},
	})
}
