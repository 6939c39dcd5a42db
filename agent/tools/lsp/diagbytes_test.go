package lsp

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDiagnosticsBoundedByBytes publishes diagnostics of 1 MB messages
// for many files, as a hostile server would, and checks that what the
// store keeps is bounded by bytes, not only by count, and that cut
// messages stay valid UTF-8 and say they were cut.
func TestDiagnosticsBoundedByBytes(t *testing.T) {
	tests := []struct {
		name    string
		files   int
		perFile int
		message string
	}{
		{"huge messages", 200, 20, strings.Repeat("é", 500<<10)},
		{"many small ones", 50, 1000, strings.Repeat("x", 3000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ds diagStore
			ds.init()
			items := make([]wireDiagnostic, tc.perFile)
			for i := range items {
				items[i] = wireDiagnostic{Severity: 1, Message: tc.message, Source: tc.message}
			}
			for f := 0; f < tc.files; f++ {
				ds.publish(fmt.Sprintf("/p/f%d.go", f), nil, items)
			}
			total := 0
			for path, kept := range ds.all() {
				for _, w := range kept {
					total += len(w.Message) + len(w.Source)
					if len(w.Message) > maxDiagnosticMessage || !utf8.ValidString(w.Message) {
						t.Fatalf("%s: a message of %d bytes kept (valid UTF-8: %v), want at most %d", path, len(w.Message), utf8.ValidString(w.Message), maxDiagnosticMessage)
					}
					if len(tc.message) > maxDiagnosticMessage && !strings.HasSuffix(w.Message, "[cut]") {
						t.Fatalf("%s: a cut message does not say so", path)
					}
				}
			}
			if total > maxDiagnosticBytes {
				t.Errorf("the store keeps %d bytes of diagnostics, over the %d byte bound", total, maxDiagnosticBytes)
			}
			if total == 0 {
				t.Error("the store kept nothing")
			}
		})
	}
}
