package telegramtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that keeps the errors the server reports.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, v ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, v...))
}

func (r *recorder) Helper() {}

func (r *recorder) errors() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func TestRequestValidation(t *testing.T) {
	tests := []struct {
		name, method, body string
		status             int
		problem            string // "" for a valid request
	}{
		{"valid", "sendMessage", `{"chat_id":42,"text":"hi"}`, 200, ""},
		{"unknown method", "sendTelepathy", `{}`, 404, `unknown method "sendTelepathy"`},
		{"missing field", "sendMessage", `{"chat_id":42}`, 400, `required parameter "text" is missing`},
		{"wrong type", "sendMessage", `{"chat_id":42,"text":7}`, 400, `parameter "text": String expected, got a number`},
		{"unknown parameter", "sendMessage", `{"chat_id":42,"text":"x","colour":"red"}`, 400, `unknown parameter "colour"`},
		{"nested object", "sendMessage", `{"chat_id":42,"text":"x","reply_markup":{"inline_keyboard":[[{"text":"a","callback_data":1}]]}}`, 400, "InlineKeyboardButton.callback_data"},
		{"float for integer", "getUpdates", `{"offset":1.5}`, 400, "Integer expected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			s := New(rec, "1:tok")
			s.OpenChat(User{ID: 42})
			status, body := post(t, s.URL+"/bot1:tok/"+tc.method, tc.body)
			if status != tc.status {
				t.Errorf("%s = %d %s, want %d", tc.method, status, body, tc.status)
			}
			got := rec.errors()
			if (tc.problem == "") != (got == "") || !strings.Contains(got, tc.problem) {
				t.Errorf("%s reported %q, want %q", tc.name, got, tc.problem)
			}
		})
	}
}

func TestWrongToken(t *testing.T) {
	s := New(t, "1:tok")
	status, body := post(t, s.URL+"/bot1:other/getMe", `{}`)
	if status != 401 || !strings.Contains(body, "Unauthorized") {
		t.Errorf("getMe with a wrong token = %d %s", status, body)
	}
}

func TestParseMarkup(t *testing.T) {
	tests := []struct {
		mode, src, text, err string
		ents                 int
	}{
		{"HTML", "<b>a</b> &amp; <i>b</i>", "a & b", "", 2},
		{"HTML", `<pre><code class="language-go">x</code></pre>`, "x", "", 1},
		{"HTML", `<a href="https://x?a=1&amp;b=2">l</a>`, "l", "", 1},
		{"HTML", "a < b", "", "can't parse entities", 0},
		{"HTML", "<b>a</i>", "", "unmatched end tag", 0},
		{"HTML", "<b>a", "", "can't find end tag", 0},
		{"HTML", "<code><b>x</b></code>", "", "can't be nested", 0},
		{"HTML", "<marquee>x</marquee>", "", "unsupported start tag", 0},
		{"HTML", "&nbsp;", "", "unsupported HTML entity", 0},
		{"MarkdownV2", `*a* \. _b_`, "a . b", "", 2},
		{"MarkdownV2", "```go\nx_y\n```", "x_y", "", 1},
		{"MarkdownV2", "a.b", "", "'.' is reserved", 0},
		{"MarkdownV2", "*open", "", "can't find end of bold", 0},
		{"MarkdownV2", "[l](https://x/\\))", "l", "", 1},
		{"MarkdownV2", ">q\n>r\ns", "q\nr\ns", "", 1},
		{"MarkdownV2", "___a_\r__", "a", "", 2},
		{"MarkdownV2", "x > y", "", "'>' is reserved", 0},
	}
	for _, tc := range tests {
		t.Run(tc.mode+" "+tc.src, func(t *testing.T) {
			text, ents, err := Parse(tc.mode, tc.src)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("Parse(%s, %q) = %v, want an error with %q", tc.mode, tc.src, err, tc.err)
				}
				return
			}
			if err != nil || text != tc.text || len(ents) != tc.ents {
				t.Errorf("Parse(%s, %q) = %q, %v, %v; want %q with %d entities", tc.mode, tc.src, text, ents, err, tc.text, tc.ents)
			}
		})
	}
}

// TestConformanceSchema checks the built-in schema against the Bot API
// description in the conformance corpus: every method, field, type and
// required flag zut's tests rely on must be there as the corpus says.
func TestConformanceSchema(t *testing.T) {
	if os.Getenv("ZUT_CONFORMANCE_DIR") == "" {
		t.Skip("ZUT_CONFORMANCE_DIR is not set; set it to the shared fixtures directory to check against the Bot API's api.json")
	}
	full, conf, err := LoadSchema()
	if err != nil || !conf {
		t.Fatalf("LoadSchema = %v, %v", conf, err)
	}
	fields := func(ty SchemaType) map[string]SchemaField {
		m := map[string]SchemaField{}
		for _, f := range ty.Fields {
			m[f.Name] = f
		}
		return m
	}
	check := func(kind, name string, mine, theirs SchemaType, ok bool) {
		if !ok {
			t.Errorf("%s %s is not in %s", kind, name, full.Version)
			return
		}
		tf := fields(theirs)
		for _, f := range mine.Fields {
			g, ok := tf[f.Name]
			if !ok {
				t.Errorf("%s %s has no field %q in %s", kind, name, f.Name, full.Version)
				continue
			}
			if g.Required != f.Required || !slices.Equal(g.Types, f.Types) {
				t.Errorf("%s %s.%s: built-in %v required=%v, %s says %v required=%v", kind, name, f.Name, f.Types, f.Required, full.Version, g.Types, g.Required)
			}
		}
	}
	mine := BuiltinSchema()
	for name, m := range mine.Methods {
		theirs, ok := full.Methods[name]
		check("method", name, m, theirs, ok)
	}
	for name, ty := range mine.Types {
		theirs, ok := full.Types[name]
		if len(ty.Subtypes) > 0 {
			continue
		}
		check("type", name, ty, theirs, ok)
	}
	// The updates the server scripts are valid Updates.
	rec := &recorder{TB: t}
	s := New(rec, "1:tok")
	s.SendText(User{ID: 1, FirstName: "A"}, "/start x")
	s.SendDocument(User{ID: 1, FirstName: "A"}, "a.txt", "text/plain", []byte("x"), "c")
	s.SendPhoto(User{ID: 1, FirstName: "A"}, []byte("\x89PNG\r\n\x1a\n"), "")
	s.SendSticker(User{ID: 1, FirstName: "A"})
	if got := rec.errors(); got != "" {
		t.Errorf("scripted updates do not conform:\n%s", got)
	}
	b, _ := json.Marshal(full.Methods["sendMessage"])
	if !bytes.Contains(b, []byte("parse_mode")) {
		t.Error("the corpus's sendMessage has no parse_mode")
	}
}
