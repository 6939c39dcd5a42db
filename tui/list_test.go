package tui

import (
	"github.com/zut-go/zut/tui/ansi"
	"strings"
	"testing"
)

// TestListMessageScroll checks that a message taller than its room
// scrolls with the page keys (and the arrows when there is nothing to
// choose), stopping at both ends, and says where the view is.
func TestListMessageScroll(t *testing.T) {
	var lines []string
	for i := 1; i <= 12; i++ {
		lines = append(lines, "line "+strings.Repeat("x", i%3)+string(rune('a'+i-1)))
	}
	msg := strings.Join(lines, "\n")
	tests := []struct {
		name  string
		items []ListItem
		keys  []string
		want  []string // the message lines shown, then the position line
	}{
		{"top", nil, nil, []string{"line xa", "line xxb", "line c", "line xd", "lines 1–4 of 12 · pgup/pgdn"}},
		{"page down", nil, []string{"pagedown"}, []string{"line xxe", "line f", "line xg", "line xxh", "lines 5–8 of 12 · pgup/pgdn"}},
		{"arrows without items", nil, []string{"down", "down", "up"}, []string{"line xxb", "line c", "line xd", "line xxe", "lines 2–5 of 12 · pgup/pgdn"}},
		{"stops at the end", nil, []string{"pagedown", "pagedown", "pagedown", "pagedown"}, []string{"line i", "line xj", "line xxk", "line l", "lines 9–12 of 12 · pgup/pgdn"}},
		{"stops at the top", nil, []string{"pagedown", "pageup", "pageup"}, []string{"line xa", "line xxb", "line c", "line xd", "lines 1–4 of 12 · pgup/pgdn"}},
		{"arrows move the selection", []ListItem{{Label: "Yes", Value: "y"}, {Label: "No", Value: "n"}}, []string{"down"}, []string{"line xa", "lines 1–1 of 12 · pgup/pgdn"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := &List{Title: "T", Message: msg, Items: tc.items, Hint: "h"}
			l.Render(40, 8, ansi.DarkTheme(), ansi.ProfileNone) // the first draw sets the page
			for _, name := range tc.keys {
				k, err := ParseKey(name)
				if err != nil {
					t.Fatal(err)
				}
				l.HandleKey(k)
			}
			out, _, _ := l.Render(40, 8, ansi.DarkTheme(), ansi.ProfileNone)
			var got []string
			for _, line := range out[1 : len(out)-1] {
				got = append(got, strings.TrimSpace(strings.Trim(line, "│")))
			}
			got = got[:len(tc.want)]
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("shown:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if len(tc.items) > 0 {
				if it, _ := l.Current(); it.Value != "n" {
					t.Errorf("selection = %q, want the arrow to move it to n", it.Value)
				}
			}
		})
	}
}
