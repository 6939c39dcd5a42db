package extinit

import (
	"strings"
	"testing"
)

func TestFill(t *testing.T) {
	d := data{Name: "greet", ToolName: "shout", Lang: "go", Tool: true}
	tests := []struct {
		src, want, err string
	}{
		{"hi {{.Name}}", "hi greet", ""},
		{"a\n{{- if .Tool}}\nT{{.ToolName}}\n{{- end}}\nz", "a\nTshout\nz", ""},
		{"{{if .Panel}}P{{else if eq .Lang \"go\"}}G{{else}}E{{end}}", "G", ""},
		{"{{if .Panel}}P{{else if .Command}}C{{else}}E{{end}}", "E", ""},
		{"{{if .Tool}}{{if .Panel}}x{{else}}y{{end}}{{end}}", "y", ""},
		{"{{if .Panel}}{{.Nope}}{{end}}", "", "no text field Nope"},
		{"{{.Nope}}", "", "no text field Nope"},
		{"{{if .Tool}}open", "", "{{if}} without {{end}}"},
		{"{{end}}", "", "{{end}} without a matching {{if}}"},
		{"{{if eq .Lang go}}x{{end}}", "", "cannot read the condition"},
		{"{{range .X}}", "", "unknown action"},
		{"{{.Name", "", "{{ without }}"},
		{"{{if .Tool}}a{{else}}b{{else}}c{{end}}", "", "after {{else}}"},
	}
	for _, tc := range tests {
		got, err := fill("t", tc.src, d)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("fill(%q) = %q, %v; want an error with %q", tc.src, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("fill(%q) = %q, %v; want %q", tc.src, got, err, tc.want)
		}
	}
}
