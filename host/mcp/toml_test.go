package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestParseTOML: the subset Codex's config.toml uses.
func TestParseTOML(t *testing.T) {
	tests := []struct {
		name, in, want string // want: the document as JSON
	}{
		{"keys and scalars", "a = 1\nb = -2.5\nc = true\nd = \"x\\ty\\u00e9\"\ne = 'C:\\path'\n# c\nf = 1_000 # trailing\n",
			`{"a":1,"b":-2.5,"c":true,"d":"x\tyé","e":"C:\\path","f":1000}`},
		{"tables and dotted keys", "[mcp_servers.docs]\ncommand = \"npx\"\nenv.KEY = \"v\"\n[mcp_servers.\"my server\"]\nurl = \"u\"\n",
			`{"mcp_servers":{"docs":{"command":"npx","env":{"KEY":"v"}},"my server":{"url":"u"}}}`},
		{"arrays over lines, inline tables", "args = [\n  \"-y\", # one\n  \"pkg\",\n]\nenv = { A = \"1\", B = { c = 2 } }\nempty = []\n",
			`{"args":["-y","pkg"],"empty":[],"env":{"A":"1","B":{"c":2}}}`},
		{"multi-line strings", "a = \"\"\"\nline one\nline \\\n   two\"\"\"\nb = '''\nraw \\n'''\n",
			`{"a":"line one\nline two","b":"raw \\n"}`},
		{"array of tables", "[[profiles]]\nname = \"a\"\n[[profiles]]\nname = \"b\"\n",
			`{"profiles":[{"name":"a"},{"name":"b"}]}`},
		{"hex and CRLF", "a = 0xff\r\nb = 0\r\n", `{"a":255,"b":0}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := ParseTOML([]byte(tc.in))
			if err != nil {
				t.Fatalf("ParseTOML(%q) = %v", tc.in, err)
			}
			got, _ := json.Marshal(doc)
			if string(got) != tc.want {
				t.Errorf("ParseTOML(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

// TestParseTOMLErrors: what is outside the subset, with line and column.
func TestParseTOMLErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a = 1\nb = \"open\n", "line 2, column 10: the string is not closed"},
		{"a = 1979-05-27\n", "line 1, column 5: dates and times are not read here"},
		{"a = 1\na = 2\n", "line 2, column 6: a is set twice"},
		{"[t]\n[t]\n", "line 2, column 4: table [t] is defined twice"},
		{"a = 1 b = 2\n", "line 1, column 7: unexpected 'b' after the value"},
		{"= 1\n", "line 1, column 1: want a key"},
		{"a = [1, 2\n", "line 2, column 1: the array is not closed with ]"},
		{"a = \"\\q\"\n", "line 1, column 7: unknown escape \\q"},
		{"a = 07\n", "line 1, column 5: \"07\": a number has no leading zero"},
		{"a = nope\n", "line 1, column 5: \"no\" is not a value zut reads"},
		{"a = 1\n[a.b]\n", "line 2, column 6: a is already a value, not a table"},
		{"a = " + strings.Repeat("[", 40) + "\n", "values nest more than 32 levels"},
		{"a = \"\xff\"\n", "line 1, column 1: the file is not UTF-8"},
	}
	for _, tc := range tests {
		_, err := ParseTOML([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseTOML(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}

// FuzzParseTOML: any input parses or fails with a line and column, and
// never panics or hangs.
func FuzzParseTOML(f *testing.F) {
	for _, s := range []string{"a = 1\n", "[mcp_servers.x]\ncommand = \"c\"\nargs = [\"a\", 'b']\n", "a = {b = [1, {c = \"\"\"x\"\"\"}]}\n", "[[a]]\n[a.b]\n", "a = '''\n'''\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseTOML(data)
		if err == nil {
			return
		}
		te, ok := err.(*TOMLError)
		if !ok || te.Line < 1 || te.Col < 1 {
			t.Fatalf("ParseTOML(%q) = %v, want a *TOMLError with a line and column", data, err)
		}
	})
}

// TestCodexServers: [mcp_servers] mapped onto servers, and the model note.
func TestCodexServers(t *testing.T) {
	getenv := func(k string) string { return map[string]string{"TOKEN": "t0k"}[k] }
	in := `model = "o3"
model_provider = "openai"
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs"]
env = { KEY = "v" }
startup_timeout_sec = 30
tool_timeout_sec = 10
enabled_tools = ["search"]

[mcp_servers.remote]
url = "https://mcp.example.com/mcp"
bearer_token_env_var = "TOKEN"
http_headers = { "X-Team" = "core" }

[mcp_servers.off]
command = "x"
enabled = false

[mcp_servers.bad]
command = 3

[mcp_servers.nothing]
args = []
`
	servers, notes, err := parseCodex([]byte(in), "/h/.codex/config.toml", getenv)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], `model = "o3", model_provider = "openai"`) {
		t.Errorf("notes = %q", notes)
	}
	got := map[string]ServerConfig{}
	for _, s := range servers {
		got[s.Name] = s
	}
	tests := []struct {
		name  string
		check func(s ServerConfig) bool
	}{
		{"docs", func(s ServerConfig) bool {
			return s.Err == nil && s.Transport == "stdio" && s.Command == "npx" && strings.Join(s.Args, " ") == "-y docs" &&
				s.Env["KEY"] == "v" && s.Timeout.Seconds() == 30 && s.Origin == OriginCodex && len(s.AllowedTools) == 1
		}},
		{"remote", func(s ServerConfig) bool {
			return s.Err == nil && s.Transport == "http" && s.Headers["Authorization"] == "Bearer t0k" && s.Headers["X-Team"] == "core"
		}},
		{"off", func(s ServerConfig) bool { return s.Err == nil && !s.Enabled }},
		{"bad", func(s ServerConfig) bool {
			return s.Err != nil && strings.Contains(s.Err.Error(), "command must be a string")
		}},
		{"nothing", func(s ServerConfig) bool { return s.Err != nil && strings.Contains(s.Err.Error(), `give "command"`) }},
	}
	for _, tc := range tests {
		if s, ok := got[tc.name]; !ok || !tc.check(s) {
			t.Errorf("server %s = %+v", tc.name, s)
		}
	}
	if _, _, err := parseCodex([]byte("[mcp_servers\n"), "/c.toml", getenv); err == nil || !strings.Contains(err.Error(), "/c.toml: line 1, column 13") {
		t.Errorf("parseCodex of a broken file = %v, want the file, line and column", err)
	}
}

// BenchmarkParseTOML reads a Codex config.toml of 20 servers.
func BenchmarkParseTOML(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("model = \"o3\"\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&sb, "[mcp_servers.s%d]\ncommand = \"npx\"\nargs = [\"-y\", \"server-%d\"]\nenv = { KEY = \"v\" }\ntool_timeout_sec = 30\n\n", i, i)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := ParseTOML(data); err != nil {
			b.Fatal(err)
		}
	}
}
