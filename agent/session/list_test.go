package session

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestProjectKey(t *testing.T) {
	cases := []struct {
		cwd        string
		wantPrefix string
	}{
		{"/work/main", "work-main-"},
		{"/work/main/", "work-main-"},
		{"/", "root-"},
		{"/home/u/my proj/ünï", "home-u-my-proj-"},
		{"/srv/.hidden/x_y.z", "srv-.hidden-x_y.z-"},
		{"/" + strings.Repeat("abcdefghij/", 10) + "end", "abcdefghij-abcdefghij-abcdefghij-abcdefghij-end-"},
	}
	shape := regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,47}-[0-9a-f]{8}$`)
	for _, tc := range cases {
		t.Run(tc.cwd, func(t *testing.T) {
			got := ProjectKey(tc.cwd)
			if !strings.HasPrefix(got, tc.wantPrefix) || !shape.MatchString(got) {
				t.Errorf("ProjectKey(%q) = %q, want %q + 8 hex digits", tc.cwd, got, tc.wantPrefix)
			}
		})
	}
	if ProjectKey("/work/main") != ProjectKey("/work/main/") {
		t.Error("ProjectKey differs for the same directory with a trailing slash")
	}
	for _, pair := range [][2]string{{"/a/b", "/a-b"}, {"/a/b", "/a b"}, {"/x/ü", "/x/é"}} {
		if ProjectKey(pair[0]) == ProjectKey(pair[1]) {
			t.Errorf("ProjectKey(%q) == ProjectKey(%q): distinct directories share a key", pair[0], pair[1])
		}
	}
}

// withSessionID makes the first ID (the session's) id; later IDs are random.
func withSessionID(id string) Option {
	first := true
	return WithIDs(func() string {
		if first {
			first = false
			return id
		}
		return randomEntryID()
	})
}

func TestListContinueResume(t *testing.T) {
	dir := t.TempDir()
	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	mk := func(id, cwd, title string, msgs []string, mod time.Time) Info {
		t.Helper()
		opts := []Option{withSessionID(id), WithClock(func() time.Time { return base })}
		if title != "" {
			opts = append(opts, WithTitle(title))
		}
		s, err := Create(dir, cwd, opts...)
		if err != nil {
			t.Fatal(err)
		}
		s.AppendModelChange("anthropic", "m")
		for i, m := range msgs {
			if i%2 == 0 {
				mustAppend(t, s, user(m))
			} else {
				mustAppend(t, s, assistant(m))
			}
		}
		s.Close()
		if err := os.Chtimes(s.Path(), mod, mod); err != nil {
			t.Fatal(err)
		}
		return Info{ID: id, Title: title, CWD: cwd, Created: base, Modified: mod, Messages: len(msgs), Path: s.Path()}
	}
	a1 := mk("abc111", "/proj/a", "alpha", []string{"hello a1", "hi"}, base.Add(2*time.Hour))
	a1.Preview = "hello a1"
	a2 := mk("abc222", "/proj/a", "", []string{"second\nline", "ok", "more"}, base.Add(time.Hour))
	a2.Preview = "second …"
	b1 := mk("xyz999", "/proj/b", "", nil, base.Add(3*time.Hour))
	// Clutter in a project directory is ignored.
	os.WriteFile(filepath.Join(filepath.Dir(a1.Path), "notes.txt"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(filepath.Dir(a1.Path), "2026_broken.jsonl"), []byte("not json\n"), 0o600)

	cases := []struct {
		name string
		cwd  string
		all  bool
		want []Info
	}{
		{"this project", "/proj/a", false, []Info{a1, a2}},
		{"this project, trailing slash", "/proj/a/", false, []Info{a1, a2}},
		{"all projects", "/proj/a", true, []Info{b1, a1, a2}},
		{"project without sessions", "/proj/none", false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := List(dir, tc.cwd, tc.all)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				got[i].Modified = got[i].Modified.UTC()
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("List(%q, %v) =\n%+v\nwant\n%+v", tc.cwd, tc.all, got, tc.want)
			}
		})
	}
	if got, err := List(filepath.Join(dir, "missing"), "/proj/a", true); err != nil || len(got) != 0 {
		t.Errorf("List(missing dir) = %v, %v; want nothing, no error", got, err)
	}

	s, _, err := Continue(dir, "/proj/a")
	if err != nil || s.ID() != "abc111" {
		t.Fatalf("Continue(/proj/a) = %v, %v; want abc111", s, err)
	}
	if id, _, _ := s.Identity(); id != "abc111" || len(s.Messages()) != 2 {
		t.Errorf("continued session: identity %q, %d messages; want abc111, 2", id, len(s.Messages()))
	}
	s.Close()
	if _, _, err := Continue(dir, "/proj/none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Continue(/proj/none) = %v, want ErrNotFound", err)
	}

	resumes := []struct {
		id      string
		want    string
		wantErr string
	}{
		{"abc222", "abc222", ""},
		{"abc1", "abc111", ""},
		{"x", "xyz999", ""},
		{"abc", "", "matches 2 sessions (abc111, abc222)"},
		{"nope", "", "session not found"},
		{"", "", "no session id"},
	}
	for _, tc := range resumes {
		t.Run("resume "+tc.id, func(t *testing.T) {
			s, _, err := Resume(dir, tc.id)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("Resume(%q) = %v, want an error containing %q", tc.id, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resume(%q): %v", tc.id, err)
			}
			defer s.Close()
			if s.ID() != tc.want {
				t.Errorf("Resume(%q) opened %q, want %q", tc.id, s.ID(), tc.want)
			}
		})
	}
}

func TestCreateFileRefusesExisting(t *testing.T) {
	path := writeFile(t, "precious\n")
	if _, err := CreateFile(path, "/p"); err == nil {
		t.Error("CreateFile over an existing file succeeded")
	}
	if data, _ := os.ReadFile(path); string(data) != "precious\n" {
		t.Errorf("CreateFile changed an existing file to %q", data)
	}
}
