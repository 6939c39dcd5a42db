package tools

import (
	"testing"

	"github.com/zut-go/zut/agent/internal/schematest"
)

// TestSchemaLimits: the limits and choices a schema states (constant
// JSON) are the ones the code checks.
func TestSchemaLimits(t *testing.T) {
	schematest.CheckAll(t, []schematest.Limit{
		{Schema: BashSchema, Path: []string{"properties", "timeout", "maximum"}, Want: bashMaxTimeout},
		{Schema: GrepSchema, Path: []string{"properties", "context", "maximum"}, Want: grepMaxContext},
		{Schema: GrepSchema, Path: []string{"properties", "limit", "maximum"}, Want: grepMaxLimit},
	})
}
