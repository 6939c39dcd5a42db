package zutfile

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestParse reads manifests that are fine, that warn and that are
// refused, and checks the error or the warnings and the defaults.
func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		err   string   // a part of the error; "" for none
		warn  []string // the warnings, all of them
		check func(t *testing.T, m *Manifest)
	}{
		{name: "smallest, defaults filled", in: `{"zutfile":1,"name":"a"}`, check: func(t *testing.T, m *Manifest) {
			p := m.Permissions
			want := Permissions{FS: FSPermissions{Read: []string{"${workspace}"}, Write: []string{}}, Bash: BashPermission{Mode: BashAsk},
				Net: NetPermissions{Allow: []string{}}, Env: EnvPermissions{Read: []string{"PATH", "HOME", "LANG", "LC_ALL", "TERM", "TZ", "USER"}}}
			if !reflect.DeepEqual(p, want) {
				t.Errorf("Permissions = %+v, want %+v", p, want)
			}
		}},
		{name: "explicit empty lists are kept", in: `{"zutfile":1,"name":"a","permissions":{"fs":{"read":[]},"env":{"read":[]}}}`, check: func(t *testing.T, m *Manifest) {
			if len(m.Permissions.FS.Read) != 0 || len(m.Permissions.Env.Read) != 0 || m.Permissions.FS.Read == nil {
				t.Errorf("read %q, env %q; want both empty", m.Permissions.FS.Read, m.Permissions.Env.Read)
			}
		}},
		{name: "aliases filesystem and network", in: `{"zutfile":1,"name":"a","permissions":{"filesystem":{"read":["/srv"],"write":["${agent_data}"]},"network":{"allow":["github.com"]}}}`, check: func(t *testing.T, m *Manifest) {
			if got := m.Permissions.FS.Read; !reflect.DeepEqual(got, []string{"/srv"}) {
				t.Errorf("fs.read = %q", got)
			}
			if got := m.Permissions.Net.Allow; !reflect.DeepEqual(got, []string{"github.com"}) {
				t.Errorf("net.allow = %q", got)
			}
		}},
		{name: "both spellings", in: `{"zutfile":1,"name":"a","permissions":{"fs":{},"filesystem":{}}}`, err: `both "fs" and "filesystem" are set`},
		{name: "bash allowlist object", in: `{"zutfile":1,"name":"a","permissions":{"bash":{"mode":"allowlist","allow":["git diff *","go test ./..."]}}}`, check: func(t *testing.T, m *Manifest) {
			want := BashPermission{Mode: BashAllowlist, Allow: []string{"git diff *", "go test ./..."}}
			if !reflect.DeepEqual(m.Permissions.Bash, want) {
				t.Errorf("bash = %+v, want %+v", m.Permissions.Bash, want)
			}
		}},
		{name: "unknown members warn with their path", in: `{"zutfile":1,"name":"a","colour":"red","model":{"size":3},"permissions":{"filesystem":{"exec":[]},"bash":{"mode":"none","why":1},"net":{"deny":[]}},"keywords":["x"],"weird key":1}`,
			warn: []string{"unknown member colour is ignored", "unknown member model.size is ignored", "unknown member permissions.bash.why is ignored",
				"unknown member permissions.filesystem.exec is ignored", "unknown member permissions.net.deny is ignored", `unknown member ["weird key"] is ignored`}},
		{name: "allow ignored outside allowlist", in: `{"zutfile":1,"name":"a","permissions":{"bash":{"mode":"none","allow":["ls"]}}}`,
			warn: []string{`permissions.bash.allow is ignored: the mode is "none", not "allowlist"`}, check: func(t *testing.T, m *Manifest) {
				if m.Permissions.Bash.Allow != nil {
					t.Errorf("bash.allow = %q, want none", m.Permissions.Bash.Allow)
				}
			}},
		{name: "unknown capability warns", in: `{"zutfile":1,"name":"a","model":{"capabilities":["tools","telepathy"]}}`,
			warn: []string{`model.capabilities[1] "telepathy" is not one zut knows (tools, vision, reasoning); it is ignored`}},
		{name: "every documented field", in: `{"zutfile":1,"name":"rev.1_x-y","version":"1.2.3","description":"d","author":"me","license":"MIT","homepage":"https://x","keywords":["k"],
			"model":{"provider":"anthropic","id":"m","min_context":1000,"capabilities":["vision"]},"requires":{"zut":">=0.1.0","os":["linux"],"arch":["amd64"],"binaries":["git"]},
			"replace_system_prompt":true,"extensions":["ext/guard"],"permissions":{"fs":{"read":["~","~/x","${home}/y","/abs"],"write":["${workspace}/out"]},"bash":"ask","net":{"allow":["*.example.org","localhost:8080","127.0.0.1","[::1]:9"]},"env":{"read":["GOPATH","_X1"]}}}`},

		{name: "not an object", in: `[1]`, err: "manifest is not a JSON object"},
		{name: "null", in: `null`, err: "manifest is not a JSON object: it is null"},
		{name: "syntax error has a line", in: "{\"zutfile\":1,\n\"name\":}", err: "line 2 column 8"},
		{name: "no version", in: `{"name":"a"}`, err: `no "zutfile" member: add "zutfile": 1`},
		{name: "version 2", in: `{"zutfile":2,"name":"a"}`, err: `"zutfile": 2 is a format this zut does not read: it reads "zutfile": 1`},
		{name: "version a string", in: `{"zutfile":"1","name":"a"}`, err: `it reads "zutfile": 1`},
		{name: "no name", in: `{"zutfile":1}`, err: `no "name"`},
		{name: "upper-case name", in: `{"zutfile":1,"name":"Reviewer"}`, err: `name "Reviewer": use lower-case`},
		{name: "name with slash", in: `{"zutfile":1,"name":"a/b"}`, err: "it names a directory"},
		{name: "name dot dot", in: `{"zutfile":1,"name":".."}`, err: "starting with a letter or a digit"},
		{name: "name too long", in: `{"zutfile":1,"name":"` + strings.Repeat("a", 65) + `"}`, err: "longer than 64"},
		{name: "name of 64", in: `{"zutfile":1,"name":"` + strings.Repeat("a", 64) + `"}`},
		{name: "wrong type", in: `{"zutfile":1,"name":"a","keywords":"x"}`, err: "keywords: a JSON string where a list is wanted"},
		{name: "bash mode unknown", in: `{"zutfile":1,"name":"a","permissions":{"bash":"sometimes"}}`, err: `unknown mode "sometimes"; use "none", "ask" or "allowlist"`},
		{name: "bash not a string or object", in: `{"zutfile":1,"name":"a","permissions":{"bash":3}}`, err: "bash: not"},
		{name: "bash allowlist empty", in: `{"zutfile":1,"name":"a","permissions":{"bash":{"mode":"allowlist"}}}`, err: "empty allow list runs no command"},
		{name: "bash allowlist as a string", in: `{"zutfile":1,"name":"a","permissions":{"bash":"allowlist"}}`, err: "empty allow list"},
		{name: "bash pattern empty", in: `{"zutfile":1,"name":"a","permissions":{"bash":{"mode":"allowlist","allow":[" "]}}}`, err: `allow[0] " ": empty pattern`},
		{name: "bash pattern new line", in: `{"zutfile":1,"name":"a","permissions":{"bash":{"mode":"allowlist","allow":["ls\nrm -rf /"]}}}`, err: "a control character"},
		{name: "bash pattern parentheses", in: `{"zutfile":1,"name":"a","permissions":{"bash":{"mode":"allowlist","allow":["echo )"]}}}`, err: "unbalanced parentheses"},
		{name: "relative path", in: `{"zutfile":1,"name":"a","permissions":{"fs":{"read":["src"]}}}`, err: `fs.read[0] "src": the path must be absolute, or start with ~`},
		{name: "dot path", in: `{"zutfile":1,"name":"a","permissions":{"fs":{"write":["./out"]}}}`, err: `fs.write[0] "./out": the path must be absolute`},
		{name: "unknown variable", in: `{"zutfile":1,"name":"a","permissions":{"fs":{"read":["${tmp}/x"]}}}`, err: "unknown variable ${tmp}; the variables are ${workspace}, ${agent_data} and ${home}"},
		{name: "unknown variable inside", in: `{"zutfile":1,"name":"a","permissions":{"fs":{"read":["/x/${user}"]}}}`, err: "unknown variable ${user}"},
		{name: "variable inside", in: `{"zutfile":1,"name":"a","permissions":{"fs":{"read":["/x/${home}"]}}}`, err: "${home} may only start a path"},
		{name: "variable glued", in: `{"zutfile":1,"name":"a","permissions":{"fs":{"read":["${workspace}x"]}}}`, err: "a '/' must follow ${workspace}"},
		{name: "variable unclosed", in: `{"zutfile":1,"name":"a","permissions":{"fs":{"read":["${workspace"]}}}`, err: "without its closing"},
		{name: "climbing path", in: `{"zutfile":1,"name":"a","permissions":{"fs":{"read":["${workspace}/../etc"]}}}`, err: "may not climb with .."},
		{name: "tilde user", in: `{"zutfile":1,"name":"a","permissions":{"fs":{"read":["~bob/x"]}}}`, err: "must be absolute"},
		{name: "empty path", in: `{"zutfile":1,"name":"a","permissions":{"fs":{"read":[""]}}}`, err: "empty path"},
		{name: "host a URL", in: `{"zutfile":1,"name":"a","permissions":{"net":{"allow":["https://github.com"]}}}`, err: "not a URL"},
		{name: "host star", in: `{"zutfile":1,"name":"a","permissions":{"net":{"allow":["*"]}}}`, err: "'*' may only start a host"},
		{name: "host bad port", in: `{"zutfile":1,"name":"a","permissions":{"net":{"allow":["x.org:0"]}}}`, err: "a port must be"},
		{name: "host bad label", in: `{"zutfile":1,"name":"a","permissions":{"net":{"allow":["a..b"]}}}`, err: "not a host name"},
		{name: "env bad name", in: `{"zutfile":1,"name":"a","permissions":{"env":{"read":["1X"]}}}`, err: "not an environment variable's name"},
		{name: "env glob", in: `{"zutfile":1,"name":"a","permissions":{"env":{"read":["AWS_*"]}}}`, err: "not an environment variable's name"},
		{name: "requires zut bad", in: `{"zutfile":1,"name":"a","requires":{"zut":"newest"}}`, err: `requires.zut "newest"`},
		{name: "requires binary path", in: `{"zutfile":1,"name":"a","requires":{"binaries":["/bin/sh"]}}`, err: "without a directory"},
		{name: "min context negative", in: `{"zutfile":1,"name":"a","model":{"min_context":-1}}`, err: "positive number"},
		{name: "extension outside", in: `{"zutfile":1,"name":"a","extensions":["../x"]}`, err: "may not leave the agent's root"},
		{name: "extension absolute", in: `{"zutfile":1,"name":"a","extensions":["/x"]}`, err: "relative to the agent's root"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, warn, err := Parse([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Parse(%s) = %v, want an error with %q", tc.in, err, tc.err)
				}
				if m != nil {
					t.Errorf("Parse(%s) returned a manifest with its error", tc.in)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%s) = %v, want no error", tc.in, err)
			}
			if !reflect.DeepEqual(warn, tc.warn) {
				t.Errorf("Parse(%s) warnings = %q, want %q", tc.in, warn, tc.warn)
			}
			if tc.check != nil {
				tc.check(t, m)
			}
		})
	}
}

// TestCeiling resolves the variables of the paths.
func TestCeiling(t *testing.T) {
	v := Vars{Workspace: "/w/proj", AgentData: "/h/.zut/agents/a/data", Home: "/h"}
	tests := []struct {
		name  string
		perms string
		vars  Vars
		want  Ceiling
		err   string
	}{
		{name: "defaults", perms: `{}`, vars: v, want: Ceiling{Read: []string{"/w/proj"}, Write: []string{}, Bash: BashPermission{Mode: BashAsk},
			Hosts: []string{}, Env: DefaultEnv}},
		{name: "every variable, write readable, repeats once", vars: v,
			perms: `{"fs":{"read":["~","${home}/src/","/etc//x","${workspace}"],"write":["${agent_data}","${workspace}/out","${agent_data}/."]},"bash":{"mode":"allowlist","allow":["ls"]},"net":{"allow":["GitHub.com.","github.com"]},"env":{"read":["A","A","B"]}}`,
			want: Ceiling{Read: []string{"/h", "/h/src", "/etc/x", "/w/proj", "/h/.zut/agents/a/data", "/w/proj/out"}, Write: []string{"/h/.zut/agents/a/data", "/w/proj/out"},
				Bash: BashPermission{Mode: BashAllowlist, Allow: []string{"ls"}}, Hosts: []string{"github.com"}, Env: []string{"A", "B"}}},
		{name: "a variable without a value", perms: `{"fs":{"write":["${agent_data}/x"]}}`, vars: Vars{Workspace: "/w", Home: "/h"}, err: `permissions.fs.write "${agent_data}/x": ${agent_data} has no absolute value here`},
		{name: "a relative value", perms: `{}`, vars: Vars{Workspace: "w"}, err: "${workspace} has no absolute value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _, err := Parse([]byte(`{"zutfile":1,"name":"a","permissions":` + tc.perms + `}`))
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Ceiling(tc.vars)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Ceiling(%+v) = %v, want an error with %q", tc.vars, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Ceiling(%+v) = %v", tc.vars, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Ceiling(%+v) =\n %+v\nwant\n %+v", tc.vars, got, tc.want)
			}
		})
	}
}

// TestCheck lists unmet requirements.
func TestCheck(t *testing.T) {
	manifest := `{"zutfile":1,"name":"a","model":{"min_context":100000,"capabilities":["tools","vision"]},
		"requires":{"zut":">=0.4.0","os":["linux","darwin"],"arch":["arm64"],"binaries":["sh","no-such-program-zut"]}}`
	m, _, err := Parse([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	look := func(name string) (string, error) {
		if name == "sh" {
			return "/bin/sh", nil
		}
		return "", errNotFound
	}
	tests := []struct {
		name string
		env  CheckEnv
		want []string
	}{
		{name: "all met", env: CheckEnv{ZutVersion: "0.4.0", GOOS: "linux", GOARCH: "arm64", ContextWindow: 200000, Capabilities: []string{"tools", "vision"}}},
		{name: "newer zut, unknown model facts", env: CheckEnv{ZutVersion: "v1.0.0-dev", GOOS: "darwin", GOARCH: "arm64"}},
		{name: "none met", env: CheckEnv{ZutVersion: "0.3.9", GOOS: "windows", GOARCH: "amd64", LookPath: look, Model: "openai/small", ContextWindow: 8000, Capabilities: []string{"tools"}},
			want: []string{
				"requires zut 0.4.0 or later; this is zut 0.3.9: install a newer zut",
				"runs on linux, darwin only; this machine is windows",
				"runs on arm64 only; this machine is amd64",
				"needs the program no-such-program-zut on PATH: install it",
				"needs a context window of 100000 tokens; openai/small has 8000: choose a larger model with --model",
				"needs a model with vision; openai/small has none: choose another with --model",
			}},
		{name: "a version it cannot read", env: CheckEnv{ZutVersion: "devel", GOOS: "linux", GOARCH: "arm64"},
			want: []string{`requires zut >=0.4.0; this zut's version "devel" cannot be compared`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := m.Check(tc.env); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Check(%+v) =\n %q\nwant\n %q", tc.env, got, tc.want)
			}
		})
	}
}

// FuzzParse reads any bytes as a manifest: it never panics, and a
// manifest it accepts has a valid name, a known bash mode and paths
// that resolve.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"zutfile":1,"name":"a"}`))
	f.Add([]byte(`{"zutfile":1,"name":"a","permissions":{"filesystem":{"read":["~/x","${home}"],"write":["${agent_data}"]},"bash":{"mode":"allowlist","allow":["ls *"]},"network":{"allow":["*.x.org:443"]},"env":{"read":["A"]}}}`))
	f.Add([]byte(`{"zutfile":1,"name":"a","x":{"y":[{"z":1}]},"permissions":{"bash":"none"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := Parse(data)
		if err != nil {
			return
		}
		if ValidName(m.Name) != nil {
			t.Fatalf("Parse accepted the name %q", m.Name)
		}
		switch m.Permissions.Bash.Mode {
		case BashNone, BashAsk, BashAllowlist:
		default:
			t.Fatalf("Parse accepted the bash mode %q", m.Permissions.Bash.Mode)
		}
		c, err := m.Ceiling(Vars{Workspace: "/w", AgentData: "/d", Home: "/h"})
		if err != nil {
			t.Fatalf("Ceiling of an accepted manifest: %v", err)
		}
		for _, p := range append(c.Read, c.Write...) {
			if !strings.HasPrefix(p, "/") || strings.Contains(p, "..") && strings.Contains("/"+p+"/", "/../") {
				t.Fatalf("Ceiling resolved %q", p)
			}
		}
	})
}

// TestExampleAgent: the example code reviewer parses without a warning,
// and the README's pack and verify lines show its digest today.
func TestExampleAgent(t *testing.T) {
	a, done, err := Load(context.Background(), "../../examples/agents/code-reviewer", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if len(a.Warnings) > 0 {
		t.Errorf("the example agent has warnings: %q", a.Warnings)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), a.Digest); n < 2 {
		t.Errorf("README.md shows the example agent's digest %s %d times, want the pack and the verify lines (update them)", a.Digest, n)
	}
}
