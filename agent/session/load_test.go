package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/zut-go/zut/provider"
)

// smallLines returns the lines of the golden session file, newlines cut.
func smallLines(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "small.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func writeFile(t testing.TB, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func warnLines(warns []Warning) []int {
	out := []int{}
	for _, w := range warns {
		out = append(out, w.Line)
	}
	return out
}

func entryIDs(entries []Entry) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e.ID)
	}
	return out
}

func TestTornLastLine(t *testing.T) {
	lines := smallLines(t)
	base := strings.Join(lines, "\n") + "\n"
	complete := `{"type":"message","id":"zz1","parent_id":"id13","time":"2026-01-02T03:04:19Z","message":{"role":"user","content":[{"type":"text","text":"done"}]}}`
	cases := []struct {
		name      string
		tail      string
		wantLen   int    // entries after Open
		wantLeaf  string // leaf after Open
		wantAfter []int  // warning lines after one more append and a reopen
	}{
		{"half an entry", complete[:57], 12, "id13", []int{14}},
		{"cut inside a string", complete[:len(complete)-20], 12, "id13", []int{14}},
		{"zero bytes", "\x00\x00\x00\x00", 12, "id13", []int{14}},
		{"complete entry without newline", complete, 13, "zz1", []int{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, base+tc.tail)
			s, warns, err := Open(path, testOpts()...)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if got := warnLines(warns); !slices.Equal(got, []int{14}) {
				t.Errorf("Open warnings on lines %v (%v), want [14]", got, warns)
			}
			if s.Len() != tc.wantLen || s.Leaf() != tc.wantLeaf {
				t.Errorf("Open: Len() = %d, Leaf() = %q; want %d, %q", s.Len(), s.Leaf(), tc.wantLen, tc.wantLeaf)
			}
			mustAppend(t, s, user("after the crash"))
			s.Close()
			data, _ := os.ReadFile(path)
			if !strings.HasPrefix(string(data), base+tc.tail+"\n") {
				t.Errorf("the file no longer starts with its old content plus a newline:\n%q", data)
			}
			r, warns, err := Open(path, testOpts()...)
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer r.Close()
			if got := warnLines(warns); !slices.Equal(got, tc.wantAfter) {
				t.Errorf("reopen warnings on lines %v (%v), want %v", got, warns, tc.wantAfter)
			}
			b := r.Branch()
			last := b[len(b)-1]
			if r.Len() != tc.wantLen+1 || last.Message.Text() != "after the crash" || last.ParentID != tc.wantLeaf {
				t.Errorf("reopen: Len() = %d, last entry %+v; want %d entries ending in the new one under %q", r.Len(), last, tc.wantLen+1, tc.wantLeaf)
			}
		})
	}
}

func TestCorruptLines(t *testing.T) {
	lines := smallLines(t)
	edit := func(f func(l []string) []string) string {
		return strings.Join(f(slices.Clone(lines)), "\n") + "\n"
	}
	cases := []struct {
		name      string
		content   string
		wantWarns []int
		wantLen   int
		missing   []string // entry IDs that must be gone
	}{
		{"invalid JSON in the middle", edit(func(l []string) []string { l[4] = `{"type":"message","id":`; return l }),
			[]int{5, 6}, 11, []string{"id05"}}, // line 6's parent was on line 5
		{"entry without id", edit(func(l []string) []string { l[2] = strings.Replace(l[2], `"id":"id03",`, "", 1); return l }),
			[]int{3, 4}, 11, []string{"id03"}},
		{"entry without type", edit(func(l []string) []string { l[7] = strings.Replace(l[7], `"type":"title",`, "", 1); return l }),
			[]int{8, 9}, 11, []string{"id08"}},
		{"duplicate id", edit(func(l []string) []string { return slices.Insert(l, 4, l[2]) }),
			[]int{5}, 12, nil},
		{"second header", edit(func(l []string) []string { return slices.Insert(l, 3, l[0]) }),
			[]int{4}, 12, nil},
		{"message entry without message", edit(func(l []string) []string {
			l[11] = `{"type":"message","id":"id12","parent_id":"id11","time":"2026-01-02T03:04:17Z"}`
			return l
		}), []int{12, 13}, 11, []string{"id12"}},
		{"blank lines", edit(func(l []string) []string { return slices.Insert(l, 5, "", "  ") }),
			[]int{}, 12, nil},
		{"unknown entry type from a newer zut", edit(func(l []string) []string {
			return slices.Insert(l, 13, `{"type":"bookmark","id":"bm1","parent_id":"id13","time":"2026-01-02T03:04:19Z","name":"x"}`)
		}), []int{}, 13, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, warns, err := Open(writeFile(t, tc.content))
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			if got := warnLines(warns); !slices.Equal(got, tc.wantWarns) {
				t.Errorf("warnings on lines %v (%v), want %v", got, warns, tc.wantWarns)
			}
			if s.Len() != tc.wantLen {
				t.Errorf("Len() = %d, want %d", s.Len(), tc.wantLen)
			}
			for _, id := range tc.missing {
				if _, ok := s.Entry(id); ok {
					t.Errorf("entry %q was kept, want it skipped", id)
				}
			}
			// Whatever was skipped, the rest still forms a usable branch.
			if len(s.Branch()) == 0 || s.Messages() == nil {
				t.Errorf("Branch() = %v, want a non-empty branch", entryIDs(s.Branch()))
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	lines := smallLines(t)
	cases := []struct {
		name    string
		content string
		want    string
	}{
		{"empty file", "", "is empty"},
		{"only blank lines", "\n\n", "is empty"},
		{"not JSON", "hello\n", "not a session header"},
		{"header is a message", lines[2] + "\n", "not a session header"},
		{"torn header", lines[0][:20], "not a session header"},
		{"newer format", strings.Replace(lines[0], `"version":1`, `"version":9`, 1) + "\n", "upgrade zut"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Open(writeFile(t, tc.content))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open(%q) = %v, want an error containing %q", tc.content, err, tc.want)
			}
		})
	}
	_, _, err := Open(filepath.Join(t.TempDir(), "missing.jsonl"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) = %v, want fs.ErrNotExist", err)
	}
}

// TestLoadSplitReads feeds a session file to the loader split at every
// byte boundary and one byte per read: the result never changes.
func TestLoadSplitReads(t *testing.T) {
	lines := smallLines(t)
	data := []byte(strings.Join(lines, "\n") + "\n" + lines[3][:40]) // ends torn
	want, wantWarns, err := load(bytes.NewReader(data), "x", newConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, r io.Reader) {
		got, warns, err := load(r, "x", newConfig(nil))
		if err != nil {
			t.Fatalf("%s: load: %v", name, err)
		}
		if !reflect.DeepEqual(snap(got), snap(want)) || !reflect.DeepEqual(warns, wantWarns) || got.torn != want.torn {
			t.Errorf("%s: load = %+v, %v; want %+v, %v", name, snap(got), warns, snap(want), wantWarns)
		}
	}
	for k := range len(data) + 1 {
		check(fmt.Sprintf("split at %d", k), io.MultiReader(bytes.NewReader(data[:k]), bytes.NewReader(data[k:])))
	}
	check("one byte per read", iotest.OneByteReader(bytes.NewReader(data)))
	check("data with errors", iotest.DataErrReader(bytes.NewReader(data)))
}

// TestLongLines loads entries longer than the read buffer, also split.
func TestLongLines(t *testing.T) {
	s := newFile(t, testOpts()...)
	long := strings.Repeat("0123456789abcdef", 40<<10) // 640 KiB
	mustAppend(t, s, user("short"))
	mustAppend(t, s, assistant(long))
	mustAppend(t, s, user("short again"))
	s.Close()
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{0, 100, 256 << 10, 300 << 10, len(data) - 5, len(data)} {
		got, warns, err := load(io.MultiReader(bytes.NewReader(data[:k]), bytes.NewReader(data[k:])), "x", newConfig(nil))
		if err != nil || len(warns) != 0 {
			t.Fatalf("split at %d: load: %v, warnings %v", k, err, warns)
		}
		msgs := got.Messages()
		if len(msgs) != 3 || msgs[1].Text() != long || msgs[2].Text() != "short again" {
			t.Errorf("split at %d: messages %v, want short, the long one, short again", k, texts(msgs))
		}
	}
}

func FuzzLoad(f *testing.F) {
	lines := smallLines(f)
	all := strings.Join(lines, "\n") + "\n"
	f.Add([]byte(all))
	f.Add([]byte(all[:len(all)-30]))
	f.Add([]byte(lines[0] + "\n" + lines[9] + "\n" + lines[2] + "\n"))
	f.Add([]byte(lines[0] + "\n{\n\x00\n" + lines[12] + "\n"))
	f.Add([]byte(lines[0] + "\n" + lines[9] + "\n" + lines[9] + "\n" + lines[1] + "\n" + lines[11] + "\n" + lines[12]))
	f.Add([]byte(lines[0] + "\n" + ` { "type" : "message" , "id" : "m", "parent_id":"id01", "message" : {"role":"user","content":[{"type":"tool_result","tool_use_id":"x"}]} }` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := load(bytes.NewReader(data), "fuzz", newConfig(nil))
		if err != nil {
			return
		}
		if n := s.entries.len(); n != len(s.parent) || n != len(s.index) || n != len(s.raw) {
			t.Fatalf("entries %d, parents %d, index %d, raw %d: out of step", s.entries.len(), len(s.parent), len(s.index), len(s.raw))
		}
		for i, p := range s.parent {
			if p >= int32(i) {
				t.Fatalf("entry %d has parent %d: not earlier in the file", i, p)
			}
		}
		s.Messages()
		s.States()
		s.Identity()
		s.Tree()
		s.PlanCompaction(10)
		for _, e := range s.Branch() {
			if err := s.Fork(e.ID); err != nil {
				t.Fatalf("Fork(%q): %v", e.ID, err)
			}
			s.Identity()
		}
		if err := s.AppendMessage(user("x"), Meta{}); err != nil {
			t.Fatalf("AppendMessage after load: %v", err)
		}
	})
}

// writeLarge writes a linear session of n entries shaped like a coding
// session: prompts, tool calls, tool output, answers, some state.
func writeLarge(t testing.TB, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "large.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var buf bytes.Buffer
	s := NewMemory("/work/project")
	put := func(e *Entry) {
		buf.Reset()
		if err := encode(&buf, e); err != nil {
			t.Fatal(err)
		}
		w.Write(buf.Bytes())
	}
	put(&s.header)
	output := strings.Repeat("main.go:12: some output line of a tool run\n", 10)
	parent := s.header.ID
	for i := range n {
		e := Entry{Type: TypeMessage, ID: fmt.Sprintf("%08x", i), ParentID: parent, Time: s.header.Time}
		var m provider.Message
		switch i % 5 {
		case 0:
			m = user(fmt.Sprintf("please look at file %d and fix the failing test in it", i))
		case 1:
			m = toolUse(fmt.Sprintf("call_%d", i), "read", fmt.Sprintf(`{"path":"pkg/file%d.go","offset":1,"limit":200}`, i))
			e.Usage = &provider.Usage{Input: 1000 + i, Output: 50}
		case 2:
			m = toolResult(fmt.Sprintf("call_%d", i-1), output)
		case 3:
			m = assistant("The test fails because the loop stops one element early. I changed the bound and the test passes now.")
		case 4:
			e = Entry{Type: TypeExtState, ID: e.ID, ParentID: parent, Time: e.Time, Extension: "todos",
				State: json.RawMessage(fmt.Sprintf(`{"done":%d,"open":["write docs","run fuzz"]}`, i))}
		}
		if e.Type == TypeMessage {
			e.Message = &m
		}
		put(&e)
		parent = e.ID
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func TestLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and loads 100k entries")
	}
	const n = 100_000
	path := writeLarge(t, n)
	s, warns, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if len(warns) != 0 || s.Len() != n || len(s.Branch()) != n || len(s.Messages()) != n*4/5 {
		t.Errorf("Open: %d entries, branch %d, %d messages, warnings %v; want %d, %d, %d, none",
			s.Len(), len(s.Branch()), len(s.Messages()), warns, n, n, n*4/5)
	}
	if st, ok := s.State("todos"); !ok || !strings.Contains(string(st), fmt.Sprintf(`"done":%d`, n-1)) {
		t.Errorf("State(todos) = %s, %v; want the last one", st, ok)
	}
}

// BenchmarkOpen100k opens a 100k-entry session. Besides time and
// allocations it reports the heap the open session keeps (live-MiB).
func BenchmarkOpen100k(b *testing.B) {
	path := writeLarge(b, 100_000)
	fi, _ := os.Stat(path)
	b.SetBytes(fi.Size())
	var live float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, _, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		live = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		s.Close()
	}
	b.ReportMetric(live, "live-MiB")
	b.ReportMetric(float64(fi.Size())/(1<<20), "file-MiB")
}

// BenchmarkAppend appends one message entry (one write each).
func BenchmarkAppend(b *testing.B) {
	s, err := Create(b.TempDir(), "/work/project")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	m := toolResult("call_1", strings.Repeat("some tool output\n", 20))
	for b.Loop() {
		if err := s.AppendMessage(m, Meta{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen100kMessages opens a 100k-entry session and builds the
// context once: the first Messages decodes every message on the branch.
func BenchmarkOpen100kMessages(b *testing.B) {
	path := writeLarge(b, 100_000)
	for b.Loop() {
		s, _, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(s.Messages()); n != 80_000 {
			b.Fatalf("Messages() has %d messages, want 80000", n)
		}
		s.Close()
	}
}
