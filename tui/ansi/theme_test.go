package ansi

import (
	"errors"
	"flag"
	"github.com/zut-go/zut/tui/internal/txtar"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// update rewrites the golden files under testdata/ instead of comparing
// against them: go test ./tui -update. It is shared by every test file of
// the package.
var update = flag.Bool("update", false, "rewrite golden files")

func TestParseColor(t *testing.T) {
	tests := []struct {
		in   string
		want Color
		err  bool
	}{
		{"#89b4fa", Color{ColorRGB, 0x89b4fa}, false},
		{"#FFF", Color{ColorRGB, 0xffffff}, false},
		{" #000000 ", Color{ColorRGB, 0}, false},
		{"244", Color{Color256, 244}, false},
		{"0", Color{Color256, 0}, false},
		{"red", Color{ColorANSI, 1}, false},
		{"Bright_Blue", Color{ColorANSI, 12}, false},
		{"bright-white", Color{ColorANSI, 15}, false},
		{"brightred", Color{ColorANSI, 9}, false},
		{"grey", Color{ColorANSI, 8}, false},
		{"default", Color{}, false},
		{"#12345", Color{}, true},
		{"#gggggg", Color{}, true},
		{"256", Color{}, true},
		{"-1", Color{}, true},
		{"mauve", Color{}, true},
		{"", Color{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseColor(tc.in)
			if (err != nil) != tc.err || got != tc.want {
				t.Errorf("ParseColor(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.err)
			}
			if err == nil && tc.in != "" {
				if back, err := ParseColor(got.String()); err != nil || back != got {
					t.Errorf("ParseColor(%q.String() = %q) = %v, %v", tc.in, got.String(), back, err)
				}
			}
		})
	}
}

func TestStyleSGR(t *testing.T) {
	st := Style{FG: RGB(0x89, 0xb4, 0xfa), BG: Color{Color256, 236}, Bold: true, Underline: true}
	tests := []struct {
		p    Profile
		want string
	}{
		{ProfileTrueColor, "\x1b[1;4;38;2;137;180;250;48;5;236m"},
		{ProfileANSI256, "\x1b[1;4;38;5;111;48;5;236m"},
		{ProfileANSI, "\x1b[1;4;94;40m"},
		{ProfileMono, "\x1b[1;4m"},
		{ProfileNone, ""},
	}
	for _, tc := range tests {
		t.Run(tc.p.String(), func(t *testing.T) {
			if got := st.SGR(tc.p); got != tc.want {
				t.Errorf("SGR(%v) = %q, want %q", tc.p, got, tc.want)
			}
		})
	}
	if got := (Style{FG: Color{ColorANSI, 3}}).SGR(ProfileMono); got != "" {
		t.Errorf("colour-only style under ProfileMono = %q, want \"\"", got)
	}
}

func TestRGBToANSI(t *testing.T) {
	tests := []struct {
		rgb  uint32
		want uint8
	}{
		{0x000000, 0}, {0xffffff, 15}, {0x808080, 8}, {0xc0c0c0, 7},
		{0xcd0000, 9}, {0x800000, 1}, {0x00ff00, 10}, {0x0000ee, 12}, {0x000080, 4},
		{0xf38ba8, 9}, {0x89b4fa, 12}, {0xa6e3a1, 10}, {0xf9e2af, 11}, {0x94e2d5, 14}, {0xcba6f7, 12},
	}
	for _, tc := range tests {
		if got := rgbToANSI(tc.rgb); got != tc.want {
			t.Errorf("rgbToANSI(#%06x) = %d, want %d", tc.rgb, got, tc.want)
		}
	}
}

func TestRenderSpans(t *testing.T) {
	bold := Style{Bold: true}
	tests := []struct {
		name  string
		spans []Span
		p     Profile
		links bool
		want  string
	}{
		{"plain", []Span{{Text: "a"}, {Text: "b"}}, ProfileTrueColor, false, "ab"},
		{"styled then plain", []Span{{Text: "a", Style: bold}, {Text: "b"}}, ProfileTrueColor, false, "\x1b[1ma\x1b[0mb"},
		{"style change", []Span{{Text: "a", Style: bold}, {Text: "b", Style: Style{Italic: true}}}, ProfileTrueColor, false, "\x1b[1ma\x1b[0;3mb\x1b[0m"},
		{"same style merges", []Span{{Text: "a", Style: bold}, {Text: "b", Style: bold}}, ProfileTrueColor, false, "\x1b[1mab\x1b[0m"},
		{"none profile", []Span{{Text: "a", Style: bold, Link: "http://x"}}, ProfileNone, true, "a"},
		{"link", []Span{{Text: "go", Link: "http://x/"}, {Text: "!"}}, ProfileTrueColor, true, "\x1b]8;;http://x/\x1b\\go\x1b]8;;\x1b\\!"},
		{"link at end", []Span{{Text: "go", Link: "http://x/"}}, ProfileMono, true, "\x1b]8;;http://x/\x1b\\go\x1b]8;;\x1b\\"},
		{"links off", []Span{{Text: "go", Link: "http://x/"}}, ProfileTrueColor, false, "go"},
		{"hostile url", []Span{{Text: "x", Link: "http://a\x1b\\b\x07 c"}}, ProfileTrueColor, true, "\x1b]8;;http://a%1B\\b%07%20c\x1b\\x\x1b]8;;\x1b\\"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RenderSpans(tc.spans, tc.p, tc.links); got != tc.want {
				t.Errorf("RenderSpans(%v) = %q, want %q", tc.spans, got, tc.want)
			}
		})
	}
}

func TestBuiltinThemesComplete(t *testing.T) {
	for _, name := range []string{"dark", "light"} {
		t.Run(name, func(t *testing.T) {
			path := "themes/" + name + ".json"
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			raw, warnings, err := parseThemeFile(path, data)
			if err != nil || len(warnings) > 0 {
				t.Fatalf("parseThemeFile(%s) = %v, %v", path, warnings, err)
			}
			for _, r := range Roles() {
				if _, ok := raw.colors[r]; !ok {
					t.Errorf("%s does not set %s", path, r)
				}
			}
			if len(raw.spinner.Frames) == 0 || raw.spinner.Interval == 0 {
				t.Errorf("%s has no spinner", path)
			}
		})
	}
	if !DarkTheme().Dark || LightTheme().Dark {
		t.Error("dark and light themes report the wrong background")
	}
}

func TestRoleNames(t *testing.T) {
	seen := make(map[string]bool)
	for _, r := range Roles() {
		n := r.String()
		if n == "" || seen[n] {
			t.Errorf("role %d has name %q (empty or duplicate)", r, n)
		}
		seen[n] = true
		if back, ok := ParseRole(n); !ok || back != r {
			t.Errorf("ParseRole(%q) = %v, %v; want %v", n, back, ok, r)
		}
	}
}

// TestThemeFiles parses each testdata/theme/*.txtar: every section named
// *.json is written to a directory that is loaded with LoadDir; the
// result lists the loaded themes (the colours that differ from the dark
// theme), the warnings and the errors.
func TestThemeFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/theme/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			a := txtar.Read(t, path)
			dir := t.TempDir()
			for _, f := range a.Files {
				if strings.HasSuffix(f.Name, ".json") {
					if err := os.WriteFile(filepath.Join(dir, f.Name), []byte(f.Data), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			s := NewThemeSet()
			warnings, err := s.LoadDir(dir)
			var b strings.Builder
			for _, name := range s.Names() {
				if name == "auto" || name == "dark" || name == "light" {
					continue
				}
				th, _ := s.Lookup(name, true)
				b.WriteString("theme " + name)
				if th.Dark {
					b.WriteString(" (dark)\n")
				} else {
					b.WriteString(" (light)\n")
				}
				for _, r := range Roles() {
					if th.Color(r) != DarkTheme().Color(r) {
						b.WriteString("  " + r.String() + " = " + th.Color(r).String() + "\n")
					}
				}
				if !slices.Equal(th.Spinner.Frames, DarkTheme().Spinner.Frames) || th.Spinner.Interval != DarkTheme().Spinner.Interval {
					b.WriteString("  spinner = " + strings.Join(th.Spinner.Frames, " ") + " every " + th.Spinner.Interval.String() + "\n")
				}
			}
			for _, w := range warnings {
				b.WriteString("warning: " + strings.ReplaceAll(w, dir+string(filepath.Separator), "") + "\n")
			}
			if err != nil {
				for _, line := range strings.Split(err.Error(), "\n") {
					b.WriteString("error: " + strings.ReplaceAll(line, dir+string(filepath.Separator), "") + "\n")
				}
				var te *ThemeError
				if !errors.As(err, &te) {
					t.Errorf("LoadDir error %v is not a *ThemeError", err)
				}
			}
			got := b.String()
			if *update {
				a.Set("result", got)
				if err := os.WriteFile(path, []byte(a.Format()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != a.Data("result") {
				t.Errorf("LoadDir(%s):\n--- got\n%s--- want\n%s", path, got, a.Data("result"))
			}
		})
	}
}

func TestThemeLookup(t *testing.T) {
	s := NewThemeSet()
	for _, tc := range []struct {
		name string
		dark bool
		want string
	}{{"auto", true, "dark"}, {"auto", false, "light"}, {"", true, "dark"}, {"light", true, "light"}} {
		th, err := s.Lookup(tc.name, tc.dark)
		if err != nil || th.Name != tc.want {
			t.Errorf("Lookup(%q, %v) = %v, %v; want %s", tc.name, tc.dark, th, err, tc.want)
		}
	}
	if _, err := s.Lookup("nope", true); err == nil || !strings.Contains(err.Error(), "auto, dark, light") {
		t.Errorf("Lookup(nope) error = %v, want one listing the themes", err)
	}
	if _, err := s.LoadDir(filepath.Join(t.TempDir(), "missing")); err != nil {
		t.Errorf("LoadDir(missing dir) = %v, want nil", err)
	}
}

func TestThemeFileName(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/home/u/.zut/themes/ocean.json", "ocean"},
		{"/ext/nord/theme.json", "nord"},
		{"/ext/nord/themes/theme.json", "nord"},
	} {
		if got := defaultThemeName(tc.path); got != tc.want {
			t.Errorf("defaultThemeName(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestSwatchGolden renders the built-in themes under every profile;
// escape characters show as \e.
func TestSwatchGolden(t *testing.T) {
	path := "testdata/theme/swatch.golden"
	var b strings.Builder
	for _, th := range []*Theme{DarkTheme(), LightTheme()} {
		for _, p := range []Profile{ProfileTrueColor, ProfileANSI256, ProfileANSI, ProfileMono, ProfileNone} {
			b.WriteString("== " + th.Name + " " + p.String() + "\n")
			for _, l := range th.Swatch(p, 60) {
				if StringWidth(l) > 60 {
					t.Errorf("swatch line %q wider than 60", l)
				}
				b.WriteString(strings.ReplaceAll(l, "\x1b", `\e`) + "\n")
			}
		}
	}
	got := b.String()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("swatches differ from %s; run go test ./tui -run TestSwatchGolden -update and review the diff", path)
	}
}

// TestThemesDoc keeps docs/themes.md listing every role.
func TestThemesDoc(t *testing.T) {
	doc, err := os.ReadFile("../docs/themes.md")
	if err != nil {
		t.Skipf("docs/themes.md not found: %v", err)
	}
	for _, r := range Roles() {
		if !strings.Contains(string(doc), "`"+r.String()+"`") {
			t.Errorf("docs/themes.md does not mention role %s", r)
		}
	}
}
