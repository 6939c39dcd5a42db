package subagent

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParseProfile reads profiles as zut and other agents write them.
func TestParseProfile(t *testing.T) {
	cases := []struct {
		name, text string
		want       Profile
		err        string
	}{
		{name: "claude style", text: "---\nname: code-reviewer\ndescription: Expert code review specialist. Use after writing code.\ntools: Read, Grep, Glob, Bash\nmodel: inherit\ncolor: blue\n---\n\nYou are a senior reviewer.\n",
			want: Profile{Name: "code-reviewer", Description: "Expert code review specialist. Use after writing code.", Tools: []string{"Read", "Grep", "Glob", "Bash"}, Prompt: "You are a senior reviewer."}},
		{name: "yaml list", text: "---\nname: tester\ntools:\n  - read\n  - bash\nmodel: anthropic/claude-haiku-4-5\nreasoning: low\n---\nRun the tests.",
			want: Profile{Name: "tester", Tools: []string{"read", "bash"}, Model: "anthropic/claude-haiku-4-5", Reasoning: "low", Prompt: "Run the tests."}},
		{name: "inline list and quotes", text: "---\nname: \"docs\"\ndescription: 'Writes the docs'\ntools: [read, \"write\"]\n---\nDocs.",
			want: Profile{Name: "docs", Description: "Writes the docs", Tools: []string{"read", "write"}, Prompt: "Docs."}},
		{name: "block description", text: "---\nname: planner\ndescription: >\n  Plans the work\n  step by step.\n---\nPlan.",
			want: Profile{Name: "planner", Description: "Plans the work step by step.", Prompt: "Plan."}},
		{name: "no front matter", text: "Just a prompt.", want: Profile{Name: "file", Prompt: "Just a prompt."}},
		{name: "name from file", text: "---\ndescription: d\n---\nbody", want: Profile{Name: "file", Description: "d", Prompt: "body"}},
		{name: "empty tools", text: "---\ntools:\n---\nx", want: Profile{Name: "file", Prompt: "x"}},
		{name: "unclosed", text: "---\nname: x\n", err: "never closed"},
		{name: "bad name", text: "---\nname: two words\n---\n", err: `name "two words" must be`},
		{name: "bad line", text: "---\nthis is not yaml\n---\n", err: "want \"key: value\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseProfile(tc.text, "/p/file.md")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "/p/file.md") {
					t.Errorf("ParseProfile = %+v, %v; want an error naming the file and %q", got, err, tc.err)
				}
				return
			}
			tc.want.Path = "/p/file.md"
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseProfile = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestLoadProfiles: the first directory that has a name wins; bad files
// are warnings.
func TestLoadProfiles(t *testing.T) {
	root := t.TempDir()
	zut := filepath.Join(root, "proj", ".zut", "agents")
	claude := filepath.Join(root, "proj", ".claude", "agents")
	writeFile(t, filepath.Join(zut, "reviewer.md"), "---\nname: reviewer\ndescription: zut's\n---\nA")
	writeFile(t, filepath.Join(claude, "reviewer.md"), "---\nname: reviewer\ndescription: claude's\n---\nB")
	writeFile(t, filepath.Join(claude, "tester.md"), "---\nname: tester\n---\nC")
	writeFile(t, filepath.Join(claude, "broken.md"), "---\nname: x\n")
	writeFile(t, filepath.Join(claude, "notes.txt"), "not a profile")
	dirs := ProfileDirs(filepath.Join(root, "proj"), filepath.Join(root, "zuthome"), filepath.Join(root, "home"))
	ps, warns := LoadProfiles(dirs)
	if len(ps) != 2 || ps[0].Name != "reviewer" || ps[0].Description != "zut's" || ps[1].Name != "tester" {
		t.Errorf("LoadProfiles = %+v, want zut's reviewer and tester", ps)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "broken.md") {
		t.Errorf("warnings = %q, want broken.md's", warns)
	}
}
