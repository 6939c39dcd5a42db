package tui

import (
	"encoding/json"
	"github.com/zut-go/zut/tui/ansi"
	"github.com/zut-go/zut/tui/internal/styletest"
	"github.com/zut-go/zut/tui/internal/txtar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestPartialObject(t *testing.T) {
	tests := []struct {
		name, in string
		want     []jsonField
	}{
		{"empty", ``, nil},
		{"not an object", `["a"]`, nil},
		{"open brace", `{`, nil},
		{"key cut", `{"comm`, nil},
		{"before value", `{"command": `, nil},
		{"string cut", `{"command": "go te`, []jsonField{{key: "command", str: "go te", isString: true}}},
		{"escape cut", `{"command": "a\`, []jsonField{{key: "command", str: "a", isString: true}}},
		{"unicode cut", `{"c": "x\u00`, []jsonField{{key: "c", str: "x", isString: true}}},
		{"surrogate cut", `{"c": "\ud83d\ude`, []jsonField{{key: "c", str: "", isString: true}}},
		{"surrogate pair", `{"c": "\ud83d\ude00!"}`, []jsonField{{key: "c", str: "😀!", isString: true, complete: true}}},
		{"lone surrogate", `{"c": "\ud83dx"}`, []jsonField{{key: "c", str: "\uFFFDx", isString: true, complete: true}}},
		{"escapes", `{"c": "a\n\t\"\\\/\u0041"}`, []jsonField{{key: "c", str: "a\n\t\"\\/A", isString: true, complete: true}}},
		{"number cut", `{"n": 12`, []jsonField{{key: "n", raw: "12"}}},
		{"two fields", `{"path": "a.go", "offset": 10, "limit": 5}`, []jsonField{
			{key: "path", str: "a.go", isString: true, complete: true},
			{key: "offset", raw: "10", complete: true},
			{key: "limit", raw: "5", complete: true},
		}},
		{"nested cut", `{"edits": [{"oldText": "a"}, {"old`, []jsonField{{key: "edits", raw: `[{"oldText": "a"}, {"old`}}},
		{"nested", `{"e": [1, {"x": "]"}], "z": true}`, []jsonField{
			{key: "e", raw: `[1, {"x": "]"}]`, complete: true},
			{key: "z", raw: "true", complete: true},
		}},
		// Found by FuzzPartialObject: invalid UTF-8 is kept as bytes (the
		// views clean it), unlike encoding/json which makes it U+FFFD.
		{"invalid utf8", "{\"\":\"\xb5\"}", []jsonField{{key: "", str: "\xb5", isString: true, complete: true}}},
		{"garbage after", `{"a": "b" junk`, []jsonField{{key: "a", str: "b", isString: true, complete: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := partialObject(tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("partialObject(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("partialObject(%q)[%d] = %+v, want %+v", tc.in, i, got[i], tc.want[i])
				}
			}
		})
	}
}

// checkPrefixes feeds every prefix of a complete object and checks that
// each string read so far is a prefix of its final value.
func checkPrefixes(t *testing.T, full string) {
	var want map[string]any
	if !utf8.ValidString(full) || json.Unmarshal([]byte(full), &want) != nil {
		// encoding/json turns invalid UTF-8 into U+FFFD; partialObject
		// keeps the bytes, which the views clean before showing them.
		return
	}
	for i := 0; i <= len(full); i++ {
		for _, f := range partialObject(full[:i]) {
			w, ok := want[f.key].(string)
			if !f.isString || !ok {
				continue
			}
			if f.complete && f.str != w || !f.complete && !strings.HasPrefix(w, f.str) {
				t.Fatalf("partialObject(%q): %s = %q (complete %v), final value %q", full[:i], f.key, f.str, f.complete, w)
			}
		}
	}
}

func TestPartialObjectPrefixes(t *testing.T) {
	for _, full := range []string{
		`{"command": "echo \"hi\" && ls -la\n", "timeout": 30}`,
		`{"path": "日本/ファイル.go", "content": "emoji \ud83d\ude00 and \u00e9"}`,
		`{"edits": [{"oldText": "a", "newText": "b"}], "path": "x"}`,
	} {
		checkPrefixes(t, full)
	}
}

func FuzzPartialObject(f *testing.F) {
	f.Add(`{"command": "go test ./...", "timeout": 60}`)
	f.Add(`{"a": "\ud83d\ude00", "b": [1, {"c": "}"}]}`)
	f.Add(`{"x": "\u12`)
	f.Fuzz(func(t *testing.T, s string) {
		partialObject(s)
		checkPrefixes(t, s)
		v := ToolView{Name: "bash", Args: s, Status: ToolStreaming}
		for _, l := range v.Render(20, nil, ansi.ProfileTrueColor) {
			if ansi.StringWidth(l) > 20 {
				t.Fatalf("line %q wider than 20", l)
			}
		}
	})
}

func TestToolViewGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/toolview/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	statuses := map[string]ToolStatus{"streaming": ToolStreaming, "running": ToolRunning, "done": ToolDone, "failed": ToolFailed}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			a := txtar.Read(t, path)
			status, ok := statuses[a.Setting("status", "done")]
			if !ok {
				t.Fatalf("bad status %q", a.Setting("status", ""))
			}
			_, hasOld := a.Get("old")
			_, hasNew := a.Get("new")
			v := ToolView{
				Name:         a.Setting("name", "bash"),
				Args:         strings.TrimSuffix(a.Data("args"), "\n"),
				Status:       status,
				Result:       a.Data("result"),
				Expanded:     a.IntSetting("expanded", 0) == 1,
				PreviewLines: a.IntSetting("preview", 0),
				HasDiff:      hasOld || hasNew,
				OldText:      a.Data("old"),
				NewText:      a.Data("new"),
				Frame:        a.IntSetting("frame", 0),
				Elapsed:      time.Duration(a.IntSetting("elapsed_ms", 0)) * time.Millisecond,
			}
			width := a.IntSetting("width", 40)
			got := map[string]string{
				"plain":  styletest.JoinLines(v.Render(width, styletest.Theme(), ansi.ProfileNone)),
				"styled": styletest.JoinLines(styletest.MapLines(v.Render(width, styletest.Theme(), ansi.ProfileANSI256), styletest.Annotate)),
			}
			for _, l := range v.Render(width, nil, ansi.ProfileTrueColor) {
				if w := ansi.StringWidth(l); w > width {
					t.Errorf("line %q is %d cells, more than %d", l, w, width)
				}
			}
			if *update {
				a.Set("plain", got["plain"])
				a.Set("styled", got["styled"])
				if err := os.WriteFile(path, []byte(a.Format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, k := range []string{"plain", "styled"} {
				if got[k] != a.Data(k) {
					t.Errorf("%s of %s:\n--- got\n%s--- want\n%s", k, path, got[k], a.Data(k))
				}
			}
		})
	}
}
