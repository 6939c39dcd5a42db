package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type ed struct{ Old, New string }

func editArgs(path string, edits ...ed) map[string]any {
	list := make([]map[string]string, len(edits))
	for i, e := range edits {
		list[i] = map[string]string{"oldText": e.Old, "newText": e.New}
	}
	return map[string]any{"path": path, "edits": list}
}

func TestEdit(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		edits []ed
		want  string // the file afterwards; "" means unchanged and an error
		err   string // substring of the error
	}{
		{"unique", "a\nb\nc\n", []ed{{"b", "B"}}, "a\nB\nc\n", ""},
		{"multi line", "func f() {\n\treturn 1\n}\n", []ed{{"\treturn 1\n", "\tx := 2\n\treturn x\n"}}, "func f() {\n\tx := 2\n\treturn x\n}\n", ""},
		{"delete", "a\nb\nc\n", []ed{{"b\n", ""}}, "a\nc\n", ""},
		{"missing", "a\nb\n", []ed{{"zzz", "y"}}, "", "edits[0].oldText was not found in the file. The file was not changed."},
		{"duplicate", "x = 1\nx = 1\n", []ed{{"x = 1", "x = 2"}}, "", "edits[0].oldText was found 2 times (at lines 1, 2); it must match exactly once"},
		{"self overlapping occurrences", "aaa", []ed{{"aa", "b"}}, "", "found 2 times"},
		{"overlapping", "abcdef\n", []ed{{"abcd", "X"}, {"cdef", "Y"}}, "", "edits[1] overlaps edits[0] (both change line 1); merge them into one edit"},
		{"contained", "one two three\n", []ed{{"two", "2"}, {"one two three", "123"}}, "", "edits[1] overlaps edits[0]"},
		{"adjacent", "abcdef", []ed{{"abc", "X"}, {"def", "Y"}}, "XY", ""},
		{"order does not matter", "1\n2\n3\n", []ed{{"3", "c"}, {"1", "a"}}, "a\n2\nc\n", ""},
		{"matched in original", "foo bar\n", []ed{{"foo", "bar"}, {"bar\n", "baz\n"}}, "bar baz\n", ""},
		{"crlf", "a\r\nb\r\nc\r\n", []ed{{"a\nb", "A\nB\nX"}}, "A\r\nB\r\nX\r\nc\r\n", ""},
		{"crlf old text crlf", "a\r\nb\r\nc\r\n", []ed{{"b\r\nc", "C"}}, "a\r\nC\r\n", ""},
		{"crlf edit ending at line end", "a\r\nb\r\n", []ed{{"a", "x\ny"}}, "x\r\ny\r\nb\r\n", ""},
		{"crlf edit starting at line end", "a\r\nb\r\n", []ed{{"\nb", "-b"}}, "a-b\r\n", ""},
		{"mixed keeps other lines", "a\r\nb\nc\n", []ed{{"b\nc", "B\nC"}}, "a\r\nB\nC\n", ""},
		{"lone cr kept", "a\rb\nc\n", []ed{{"c", "C"}}, "a\rb\nC\n", ""},
		{"bom", "\uFEFFhello\nworld\n", []ed{{"hello", "hi"}}, "\uFEFFhi\nworld\n", ""},
		{"bom crlf", "\uFEFFa\r\nb\r\n", []ed{{"b", "c"}}, "\uFEFFa\r\nc\r\n", ""},
		{"empty old", "a\n", []ed{{"", "x"}}, "", "edits[0].oldText is empty"},
		{"no change", "a\n", []ed{{"a", "a"}}, "", "edits[0]: oldText and newText are the same"},
		{"several failures", "a b c\n", []ed{{"a", "A"}, {"q", "Q"}, {"c", "c"}}, "", "2 of 3 edits failed, so the file was not changed:\n- edits[1].oldText was not found"},
		{"hint whitespace edges", "a\nb\n", []ed{{"b\n\n", "c"}}, "", "it does match once leading and trailing whitespace"},
		{"hint divergence", "func f() {\n\treturn 1\n}\n", []ed{{"func f() {\n    return 1\n}", "x"}}, "", `its first 1 line match at line 1, but then the file has "\treturn 1" where oldText has "    return 1"`},
		{"hint indentation", "if x {\n\tfoo()\n}\n", []ed{{"foo()\nbar()", "x"}}, "", `line 2 matches its first line except for whitespace: the file has "\tfoo()", oldText has "foo()"`},
		{"hint closest", "say hello world\nother\n", []ed{{"say helo world", "x"}}, "", `the closest line to its first line is line 1: "say hello world"`},
		{"hint past end", "a\nb", []ed{{"a\nb\nc", "x"}}, "", "its first 2 lines match at line 1, but then the file has (end of file)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t)
			path := filepath.Join(cfg.CWD, "f.txt")
			writeFiles(t, cfg.CWD, map[string]string{"f.txt": tc.file})
			r := call(t, &editTool{cfg}, editArgs("f.txt", tc.edits...))
			got := readFile(t, path)
			if tc.want == "" {
				if !r.IsError || !strings.Contains(r.Text(), tc.err) {
					t.Errorf("edit(%q, %q) = %q, want an error containing %q", tc.file, tc.edits, r.Text(), tc.err)
				}
				if got != tc.file {
					t.Errorf("edit(%q, %q) changed the file to %q despite the error", tc.file, tc.edits, got)
				}
				return
			}
			if r.IsError {
				t.Fatalf("edit(%q, %q) failed: %s", tc.file, tc.edits, r.Text())
			}
			if got != tc.want {
				t.Errorf("edit(%q, %q) wrote %q, want %q", tc.file, tc.edits, got, tc.want)
			}
			var fc FileChange
			if err := json.Unmarshal(r.Details, &fc); err != nil {
				t.Fatalf("Details %s: %v", r.Details, err)
			}
			norm := func(s string) string { return toLF(strings.TrimPrefix(s, "\uFEFF")) }
			if fc.Path != "f.txt" || fc.Old != norm(tc.file) || fc.New != norm(tc.want) {
				t.Errorf("Details = %+v, want path f.txt, old %q, new %q", fc, norm(tc.file), norm(tc.want))
			}
		})
	}
}

func TestEditFiles(t *testing.T) {
	cfg := testConfig(t)
	writeFiles(t, cfg.CWD, map[string]string{
		"main.go":    "package main\n",
		"bin.dat":    "\x7fELF\x00\x01",
		"dir/x.txt":  "x",
		"script.sh":  "echo hi\n",
		"target.txt": "linked\n",
	})
	os.Chmod(filepath.Join(cfg.CWD, "script.sh"), 0o751)
	os.Symlink("target.txt", filepath.Join(cfg.CWD, "link.txt"))
	tl := &editTool{cfg}
	cases := []goldenCase{
		{"missing file with suggestion", call(t, tl, editArgs("mian.go", ed{"a", "b"}))},
		{"directory", call(t, tl, editArgs("dir", ed{"a", "b"}))},
		{"binary", call(t, tl, editArgs("bin.dat", ed{"a", "b"}))},
		{"success", call(t, tl, editArgs("main.go", ed{"main", "tools"}))},
		{"success multi", call(t, tl, editArgs("main.go", ed{"package", "// doc\npackage"}, ed{"tools\n", "tools\n\nfunc f() {}\n"}))},
		{"keeps mode", call(t, tl, editArgs("script.sh", ed{"hi", "ho"}))},
		{"through symlink", call(t, tl, editArgs("link.txt", ed{"linked", "still linked"}))},
	}
	checkGolden(t, "edit.golden", cases)
	if fi, _ := os.Stat(filepath.Join(cfg.CWD, "script.sh")); fi.Mode().Perm() != 0o751 {
		t.Errorf("edit changed the mode of script.sh to %v, want 0751", fi.Mode().Perm())
	}
	if fi, _ := os.Lstat(filepath.Join(cfg.CWD, "link.txt")); fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("edit replaced the symlink link.txt with a file")
	}
	if got := readFile(t, filepath.Join(cfg.CWD, "target.txt")); got != "still linked\n" {
		t.Errorf("target of link.txt = %q, want the edit applied", got)
	}
	if got := readFile(t, filepath.Join(cfg.CWD, "main.go")); got != "// doc\npackage tools\n\nfunc f() {}\n" {
		t.Errorf("main.go = %q after two edits", got)
	}
	entries, _ := os.ReadDir(cfg.CWD)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".zut-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
