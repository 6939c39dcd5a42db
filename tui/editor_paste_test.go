package tui

import (
	"strings"
	"testing"
)

// TestPasteMarkerCountsLines: the marker counts the lines pasted; a final
// line end starts no line.
func TestPasteMarkerCountsLines(t *testing.T) {
	tests := []struct {
		paste, want string
	}{
		{strings.Repeat("line\n", 30), "[paste #1 +30 lines]"},
		{strings.TrimSuffix(strings.Repeat("line\n", 30), "\n"), "[paste #1 +30 lines]"},
		{strings.Repeat("line\r\n", 12), "[paste #1 +12 lines]"},
		{strings.Repeat("x", 1500), "[paste #1 1500 chars]"},
	}
	for _, tc := range tests {
		e := &Editor{}
		e.Paste(tc.paste)
		if got := e.Text(); got != tc.want {
			t.Errorf("Paste(%d bytes) shows %q, want %q", len(tc.paste), got, tc.want)
		}
		if e.Value() != tc.paste {
			t.Errorf("Paste(%d bytes): Value() is not the pasted text", len(tc.paste))
		}
	}
}
