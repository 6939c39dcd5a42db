// Package txtar reads and writes the txtar archives that the tests of the
// terminal UI keep their cases in: a comment, then files each introduced
// by a "-- name --" line. It serves tests only.
package txtar

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Archive is a comment and named files, in order.
type Archive struct {
	Comment string
	Files   []File
}

// File is one file of an archive.
type File struct {
	Name string
	Data string
}

// Parse reads an archive from its text.
func Parse(s string) *Archive {
	a := &Archive{}
	var cur *File
	var b strings.Builder
	flush := func() {
		if cur == nil {
			a.Comment = b.String()
		} else {
			cur.Data = b.String()
			a.Files = append(a.Files, *cur)
		}
		b.Reset()
	}
	for _, line := range strings.SplitAfter(s, "\n") {
		t := strings.TrimRight(line, "\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) > 6 {
			flush()
			cur = &File{Name: t[3 : len(t)-3]}
			continue
		}
		b.WriteString(line)
	}
	flush()
	return a
}

// ParseFile reads the archive in the file at path.
func ParseFile(path string) (*Archive, error) {
	data, err := os.ReadFile(path) //zut:open test support: the test's own files
	if err != nil {
		return nil, err
	}
	return Parse(string(data)), nil
}

// Read reads the archive at path, failing the test when it cannot.
func Read(t testing.TB, path string) *Archive {
	t.Helper()
	a, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Data returns the data of the file name, "" when there is none.
func (a *Archive) Data(name string) string {
	d, _ := a.Get(name)
	return d
}

// Get returns the data of the file name and whether there is one.
func (a *Archive) Get(name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return "", false
}

// Set replaces the data of the file name, or adds the file at the end.
func (a *Archive) Set(name, data string) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = data
			return
		}
	}
	a.Files = append(a.Files, File{Name: name, Data: data})
}

// Setting returns the value of a "key: value" line of the comment, or def
// when there is none.
func (a *Archive) Setting(key, def string) string {
	for _, line := range strings.Split(a.Comment, "\n") {
		if v, ok := strings.CutPrefix(line, key+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	return def
}

// IntSetting returns the integer value of a "key: value" line of the
// comment, or def when there is none or it is not an integer.
func (a *Archive) IntSetting(key string, def int) int {
	if n, err := strconv.Atoi(a.Setting(key, "")); err == nil {
		return n
	}
	return def
}

// Format writes the archive back as text. A file whose data does not end
// in a newline gets one, so that the next header starts a line.
func (a *Archive) Format() string {
	var b strings.Builder
	b.WriteString(a.Comment)
	for _, f := range a.Files {
		fmt.Fprintf(&b, "-- %s --\n%s", f.Name, f.Data)
		if f.Data != "" && !strings.HasSuffix(f.Data, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
