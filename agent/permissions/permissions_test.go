package permissions

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func call(tool string, args map[string]any) Call {
	b, _ := json.Marshal(args)
	return Call{Tool: tool, Args: b, CWD: "/home/me/proj"}
}

func mustRule(t *testing.T, text string, e Effect) Rule {
	t.Helper()
	r, err := ParseRule(text, e, SourceUser)
	if err != nil {
		t.Fatalf("ParseRule(%q) = %v", text, err)
	}
	return r
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name  string
		rules map[string]Effect
		call  Call
		want  Effect
	}{
		{"no rules", nil, call("bash", map[string]any{"command": "ls"}), None},
		{"exact command", map[string]Effect{"bash(git status)": Allow}, call("bash", map[string]any{"command": "git status"}), Allow},
		{"exact command, other", map[string]Effect{"bash(git status)": Allow}, call("bash", map[string]any{"command": "git push"}), None},
		{"star", map[string]Effect{"bash(go test *)": Allow}, call("bash", map[string]any{"command": "go test ./..."}), Allow},
		{"star matches nothing", map[string]Effect{"bash(go test *)": Allow}, call("bash", map[string]any{"command": "go test"}), Allow},
		{"star is not a prefix of a word", map[string]Effect{"bash(go test *)": Allow}, call("bash", map[string]any{"command": "go testify"}), None},
		{"allow never spans &&", map[string]Effect{"bash(go test *)": Allow}, call("bash", map[string]any{"command": "go test ./... && rm -rf ~"}), None},
		{"allow never spans $()", map[string]Effect{"bash(go test *)": Allow}, call("bash", map[string]any{"command": "go test $(rm -rf ~)"}), None},
		{"allow never spans a redirect", map[string]Effect{"bash(go test *)": Allow}, call("bash", map[string]any{"command": "go test > out"}), None},
		{"literal operator in the pattern", map[string]Effect{"bash(go test ./... | tail *)": Allow}, call("bash", map[string]any{"command": "go test ./... | tail -5"}), Allow},
		{"deny any part", map[string]Effect{"bash(rm *)": Deny, "bash(go test *)": Allow}, call("bash", map[string]any{"command": "go test && rm -rf build"}), Deny},
		{"deny beats allow", map[string]Effect{"bash": Allow, "bash(rm *)": Deny}, call("bash", map[string]any{"command": "rm x"}), Deny},
		{"ask beats allow", map[string]Effect{"read": Allow, "read(.env)": Ask}, call("read", map[string]any{"path": ".env"}), Ask},
		{"path under dir", map[string]Effect{"edit(docs/**)": Allow}, call("edit", map[string]any{"path": "docs/a/b.md"}), Allow},
		{"absolute path inside", map[string]Effect{"edit(docs/**)": Allow}, call("edit", map[string]any{"path": "/home/me/proj/docs/x.md"}), Allow},
		{"path escaping with ..", map[string]Effect{"edit(docs/**)": Allow}, call("edit", map[string]any{"path": "docs/../../etc/passwd"}), None},
		{"star stays in one element", map[string]Effect{"write(*.md)": Allow}, call("write", map[string]any{"path": "sub/x.md"}), None},
		{"star at the top", map[string]Effect{"write(*.md)": Allow}, call("write", map[string]any{"path": "x.md"}), Allow},
		{"double star any depth", map[string]Effect{"write(**/*.md)": Allow}, call("write", map[string]any{"path": "a/b/x.md"}), Allow},
		{"other tool", map[string]Effect{"edit(docs/**)": Allow}, call("write", map[string]any{"path": "docs/x.md"}), None},
		{"extension tool", map[string]Effect{"todo": Allow}, call("todo", map[string]any{"action": "add"}), Allow},
		{"extension tool argument", map[string]Effect{"todo(list)": Allow}, call("todo", map[string]any{"action": "add"}), None},
		{"tool name glob", map[string]Effect{"mcp__github__*": Allow}, call("mcp__github__issues", nil), Allow},
		{"grep without path", map[string]Effect{"grep(.)": Deny}, call("grep", map[string]any{"pattern": "x"}), Deny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSet()
			for text, e := range tc.rules {
				s.Add(mustRule(t, text, e))
			}
			if got, r := s.Decide(tc.call); got != tc.want {
				t.Errorf("Decide(%s %s) = %v (rule %s), want %v", tc.call.Tool, tc.call.Args, got, r, tc.want)
			}
		})
	}
}

func TestParseRule(t *testing.T) {
	tests := []struct {
		text, tool, pattern, err string
	}{
		{"bash", "bash", "", ""},
		{" bash(go test *) ", "bash", "go test *", ""},
		{"edit(*)", "edit", "", ""},
		{"bash(", "", "", "must end with ')'"},
		{"bash()", "", "", "empty pattern"},
		{"(x)", "", "", "no tool name"},
		{"ba sh", "", "", "not a tool name"},
	}
	for _, tc := range tests {
		r, err := ParseRule(tc.text, Allow, SourceFlag)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseRule(%q) error = %v, want %q", tc.text, err, tc.err)
		case tc.err == "" && (err != nil || r.Tool != tc.tool || r.Pattern != tc.pattern):
			t.Errorf("ParseRule(%q) = %+v, %v, want %s(%s)", tc.text, r, err, tc.tool, tc.pattern)
		}
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		call Call
		want string
	}{
		{call("bash", map[string]any{"command": "go test ./..."}), "bash(go test ./...)"},
		{call("bash", map[string]any{"command": "git status"}), "bash(git status)"},
		{call("bash", map[string]any{"command": " git  'status' "}), "bash(git status)"},
		{call("bash", map[string]any{"command": "git status # why"}), "bash(git status)"},
		{call("bash", map[string]any{"command": "seq 1 60"}), "bash(seq 1 60)"},
		{call("bash", map[string]any{"command": "ls"}), "bash(ls)"},
		{call("bash", map[string]any{"command": "rm -rf /"}), "bash(rm -rf /)"},
		{call("bash", map[string]any{"command": "grep -n 'a b' x.go"}), "bash(grep -n 'a b' x.go)"},
		{call("bash", map[string]any{"command": "make && make test"}), "bash(make && make test)"},
		{call("bash", map[string]any{"command": "go test ./... 2>&1 | tail -5"}), "bash(go test ./... 2>&1 | tail -5)"},
		{call("bash", map[string]any{"command": "go test ./... > out.txt"}), "bash(go test ./... > out.txt)"},
		{call("bash", map[string]any{"command": "ls *.go"}), ""},
		{call("bash", map[string]any{"command": "echo a\necho b"}), ""},
		{call("bash", map[string]any{"command": "$(echo rm) x"}), ""},
		{call("bash", map[string]any{"command": "sh -c 'git status'"}), ""},
		{call("bash", map[string]any{"command": "echo ("}), ""},
		{call("edit", map[string]any{"path": "docs/guide/a.md"}), "edit(docs/guide/**)"},
		{call("write", map[string]any{"path": "main.go"}), "write(main.go)"},
		{call("todo", map[string]any{"action": "add"}), "todo"},
	}
	for _, tc := range tests {
		r, ok := Suggest(tc.call)
		got := r.String()
		if !ok {
			got = ""
		}
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Suggest(%s %s) = %q, %v, want %q", tc.call.Tool, tc.call.Args, got, ok, tc.want)
			continue
		}
		// The rule allows the call it was made for, once written and
		// read back.
		if ok {
			back, err := ParseRule(r.String(), Allow, SourceUserProject)
			if err != nil {
				t.Errorf("ParseRule(%q) = %v", r, err)
				continue
			}
			if e, _ := NewSet(back).Decide(tc.call); e != Allow {
				t.Errorf("Suggest(%s %s) = %s, which decides %v for the call", tc.call.Tool, tc.call.Args, r, e)
			}
		}
	}
}

// TestFiles saves rules for a project and for every project, loads them
// back with the project's own file, and removes one.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config.json")
	os.WriteFile(user, []byte(`{"theme": "dark", "options": {"x": 1}}`), 0o644)
	proj := filepath.Join(dir, "settings.json")
	os.WriteFile(proj, []byte(`{"permissions": {"allow": ["bash"], "deny": ["bash(rm *)"], "ask": ["read(.env)", "bad("]}}`), 0o644)
	f := Files{User: user, Project: proj, Dir: "/p"}
	for _, r := range []Rule{
		{Effect: Allow, Tool: "bash", Pattern: "go test *", Source: SourceUserProject},
		{Effect: Deny, Tool: "write", Pattern: ".git/**", Source: SourceUser},
	} {
		if err := f.Save(r); err != nil {
			t.Fatalf("Save(%s) = %v", r, err)
		}
	}
	data, _ := os.ReadFile(user)
	if !strings.Contains(string(data), `"theme": "dark"`) || !strings.Contains(string(data), `"x": 1`) {
		t.Errorf("Save lost the other members of config.json:\n%s", data)
	}
	s, warns := Load(f)
	if len(warns) != 1 || !strings.Contains(warns[0], "bad(") {
		t.Errorf("Load warnings = %q, want one about the bad rule", warns)
	}
	var got []string
	for _, r := range s.Rules() {
		got = append(got, r.Effect.String()+" "+r.String()+" "+string(r.Source))
	}
	want := []string{"deny write(.git/**) user", "deny bash(rm *) project", "ask read(.env) project", "allow bash(go test *) user-project"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("rules = %q, want %q", got, want)
	}
	if ig := s.Ignored(); len(ig) != 1 || ig[0].String() != "bash" {
		t.Errorf("Ignored() = %v, want the untrusted project's allow bash", ig)
	}
	if e, _ := s.Decide(call("bash", map[string]any{"command": "ls"})); e != None {
		t.Errorf("an untrusted project's allow rule decided %v", e)
	}
	f.Trusted = true
	if s, _ := Load(f); len(s.Ignored()) != 0 {
		t.Errorf("a trusted project's allow rules are ignored")
	}
	// Another project does not see this one's rules.
	if s, _ := Load(Files{User: user, Dir: "/other"}); len(s.Rules()) != 1 {
		t.Errorf("rules for /other = %v, want only the one for every project", s.Rules())
	}
	if err := f.Delete(Rule{Effect: Allow, Tool: "bash", Pattern: "go test *", Source: SourceUserProject}); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(user)
	if strings.Contains(string(data), "go test") || strings.Contains(string(data), `"/p"`) {
		t.Errorf("Delete left the rule:\n%s", data)
	}
	if err := f.Save(Rule{Effect: Allow, Tool: "bash", Source: SourceProject}); err == nil {
		t.Errorf("Save of a project-file rule into config.json succeeded")
	}
}
