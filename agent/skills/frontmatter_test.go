package skills

import (
	"maps"
	"strings"
	"testing"
)

func TestParseFrontMatter(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]string
		err  string // substring of the error; "" for none
	}{
		{"plain", "name: pdf\ndescription: Work with PDF files.\n", map[string]string{"name": "pdf", "description": "Work with PDF files."}, ""},
		{"comment and blank", "# a comment\n\nname: x # trailing comment\n", map[string]string{"name": "x"}, ""},
		{"hash inside word", "name: c#sharp\n", map[string]string{"name": "c#sharp"}, ""},
		{"colon in value", "description: Use when: the user asks\n", map[string]string{"description": "Use when: the user asks"}, ""},
		{"double quoted", `description: "Say \"hi\"\tthen\u0021 # not a comment"` + "\n", map[string]string{"description": "Say \"hi\"\tthen! # not a comment"}, ""},
		{"single quoted", "description: 'it''s fine'  # note\n", map[string]string{"description": "it's fine"}, ""},
		{"quoted over lines", "description: \"first\n  second\"\n", map[string]string{"description": "first second"}, ""},
		{"plain continued", "description: one\n  two\n\n  three\nname: n\n", map[string]string{"description": "one two\nthree", "name": "n"}, ""},
		{"folded", "description: >\n  Folded text\n  on lines.\n\n  New paragraph.\nname: n\n", map[string]string{"description": "Folded text on lines.\nNew paragraph.\n", "name": "n"}, ""},
		{"folded strip", "description: >-\n    a\n    b\n", map[string]string{"description": "a b"}, ""},
		{"literal", "description: |\n  line one\n    indented\n  line three\n", map[string]string{"description": "line one\n  indented\nline three\n"}, ""},
		{"literal keep", "description: |+\n  a\n\n", map[string]string{"description": "a\n\n"}, ""},
		{"nested ignored", "metadata:\n  author: me\n  tags:\n    - a\nname: x\nallowed-tools:\n- Read\n- Bash\n", map[string]string{"metadata": "author: me tags: - a", "name": "x", "allowed-tools": ""}, ""},
		{"crlf", "name: x\r\ndescription: y\r\n", map[string]string{"name": "x", "description": "y"}, ""},
		{"empty value", "name:\n", map[string]string{"name": ""}, ""},
		{"no colon", "just text\n", nil, "want \"key: value\""},
		{"no space", "name:x\n", nil, "want a space"},
		{"bad key", "na me: x\n", nil, "want \"key: value\""},
		{"unclosed quote", "description: \"abc\n", nil, "not closed"},
		{"junk after quote", "description: \"abc\" def\n", nil, "after the closing quote"},
		{"bad escape", `description: "\q"` + "\n", nil, "unknown escape"},
		{"duplicate", "name: a\nname: b\n", nil, "set twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseFrontMatter(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("parseFrontMatter(%q) error = %v, want one containing %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseFrontMatter(%q) error = %v", tc.in, err)
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("parseFrontMatter(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSplitFrontMatter(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		front, body string
		ok          bool
		wantErr     bool
	}{
		{"basic", "---\nname: a\n---\nBody\n", "name: a\n", "Body\n", true, false},
		{"bom and crlf", "\uFEFF---\r\nname: a\r\n---\r\nBody", "name: a\r\n", "Body", true, false},
		{"dots close", "---\nname: a\n...\nB", "name: a\n", "B", true, false},
		{"close at eof", "---\nname: a\n---", "name: a\n", "", true, false},
		{"empty front", "---\n---\nB", "", "B", true, false},
		{"none", "# Title\n", "", "# Title\n", false, false},
		{"unclosed", "---\nname: a\n", "", "---\nname: a\n", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			front, body, ok, err := splitFrontMatter(tc.in)
			if (err != nil) != tc.wantErr || ok != tc.ok || front != tc.front || body != tc.body {
				t.Errorf("splitFrontMatter(%q) = %q, %q, %v, %v; want %q, %q, %v, error %v", tc.in, front, body, ok, err, tc.front, tc.body, tc.ok, tc.wantErr)
			}
		})
	}
}

// FuzzFrontMatter feeds arbitrary SKILL.md text (which comes from outside)
// to the parser: it must not panic, and what it accepts must be stable.
func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\nbody",
		"---\ndescription: >-\n  x\n  y\n---\n",
		"---\ndescription: \"\\u00e9\\x41\"\n---\n",
		"---\nname: 'a''b'\n---\n",
		"---\nmetadata:\n  k: v\n---\n",
		"\uFEFF---\r\nname: a\r\n---\r\n",
		"---\ndescription: |+\n\n  a\n---",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		front, _, ok, err := splitFrontMatter(s)
		if !ok || err != nil {
			return
		}
		m, err := parseFrontMatter(front)
		if err != nil {
			return
		}
		sk, err := parseSkill("/x/y/SKILL.md", s)
		if err != nil {
			return
		}
		if sk.Description == "" || checkName(sk.Name) != nil {
			t.Fatalf("parseSkill(%q) = %+v: accepted a skill without a description or with a bad name", s, sk)
		}
		if m["name"] != "" && sk.Name != strings.TrimSpace(m["name"]) {
			t.Fatalf("parseSkill(%q).Name = %q, want the front matter's %q", s, sk.Name, m["name"])
		}
	})
}
