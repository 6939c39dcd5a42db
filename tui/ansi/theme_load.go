package ansi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/zut-go/zut/proto/regular"
)

// ThemeError reports a theme file that cannot be used: which file, which
// field (a dotted JSON path such as "colors.accent", empty for the whole
// file) and why.
type ThemeError struct {
	Path  string
	Field string
	Err   error
}

func (e *ThemeError) Error() string {
	if e.Field == "" {
		return "theme " + e.Path + ": " + e.Err.Error()
	}
	return "theme " + e.Path + ": " + e.Field + ": " + e.Err.Error()
}

func (e *ThemeError) Unwrap() error { return e.Err }

// ThemeSet holds the themes a user can choose from: the built-in dark and
// light themes, "auto", and whatever was loaded from theme files. A
// ThemeSet is not safe for concurrent use; the Themes it returns are.
type ThemeSet struct {
	themes map[string]*Theme
}

// NewThemeSet returns a set holding the built-in themes.
func NewThemeSet() *ThemeSet {
	s := &ThemeSet{themes: make(map[string]*Theme)}
	for name, t := range builtins() {
		s.themes[name] = t
	}
	return s
}

// Names lists the selectable names: "auto", "dark", "light", then the
// loaded themes in alphabetical order.
func (s *ThemeSet) Names() []string {
	var extra []string
	for name := range s.themes {
		if name != "dark" && name != "light" {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	return append([]string{"auto", "dark", "light"}, extra...)
}

// Lookup returns the theme called name. "auto" (and "") picks dark or
// light by darkBackground, which the terminal layer detects.
func (s *ThemeSet) Lookup(name string, darkBackground bool) (*Theme, error) {
	if name == "" || name == "auto" {
		if darkBackground {
			return s.themes["dark"], nil
		}
		return s.themes["light"], nil
	}
	if t, ok := s.themes[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("theme %q: not found; choose one of %s, or add %s.json to the themes directory", name, strings.Join(s.Names(), ", "), name)
}

// LoadDir loads every *.json file in dir (the caller passes
// $ZUT_HOME/themes). A missing dir is not an error. Files may extend each
// other. A broken file is skipped and reported in err (one *ThemeError
// per file, joined); the others still load. Warnings name ignored fields.
func (s *ThemeSet) LoadDir(dir string) (warnings []string, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load themes: %w", err)
	}
	var raws []*rawTheme
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := readTheme(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		raw, warns, err := parseThemeFile(path, data)
		warnings = append(warnings, warns...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		raws = append(raws, raw)
	}
	_, warns, err := s.addAll(raws)
	warnings = append(warnings, warns...)
	if err != nil {
		errs = append(errs, err)
	}
	return warnings, errors.Join(errs...)
}

// LoadFile loads one theme file, such as a theme-only extension's
// theme.json, and adds it to the set. The theme's name is its "name"
// field, else the file name without ".json"; a file called theme.json is
// named after its directory (or the directory above a "themes" directory).
func (s *ThemeSet) LoadFile(path string) (*Theme, []string, error) {
	data, err := readTheme(path)
	if err != nil {
		return nil, nil, err
	}
	return s.Parse(path, data)
}

// MaxThemeFile bounds a theme file: 1 MiB, as for every configuration
// file.
const MaxThemeFile = 1 << 20

// readTheme reads the theme file at path as a regular file of at most
// MaxThemeFile bytes: a FIFO, a device or a directory is refused at once,
// a larger file by its size, in a *ThemeError.
func readTheme(path string) ([]byte, error) {
	data, err := regular.Read(path, MaxThemeFile)
	var re *regular.Error
	switch {
	case errors.As(err, &re) && errors.Is(err, regular.ErrNotRegular):
		return nil, &ThemeError{Path: path, Err: fmt.Errorf("%s, %w; replace it with a regular file or remove it", re.Kind, re.Err)}
	case errors.Is(err, regular.ErrTooLarge):
		return nil, &ThemeError{Path: path, Err: fmt.Errorf("larger than the %d MiB limit for a theme; shorten it or remove it", MaxThemeFile>>20)}
	case errors.As(err, &re):
		return nil, &ThemeError{Path: path, Err: re.Err}
	case err != nil:
		return nil, &ThemeError{Path: path, Err: err}
	}
	return data, nil
}

// Parse adds the theme in data, read from path (used for its default name
// and in messages), to the set.
func (s *ThemeSet) Parse(path string, data []byte) (*Theme, []string, error) {
	raw, warnings, err := parseThemeFile(path, data)
	if err != nil {
		return nil, warnings, err
	}
	ts, warns, err := s.addAll([]*rawTheme{raw})
	warnings = append(warnings, warns...)
	if err != nil {
		return nil, warnings, err
	}
	return ts[0], warnings, nil
}

// addAll resolves a batch of parsed files, which may extend each other
// or themes already in the set, and adds the ones that resolve.
func (s *ThemeSet) addAll(raws []*rawTheme) ([]*Theme, []string, error) {
	var warnings []string
	var errs []error
	batch := make(map[string]*rawTheme)
	for _, raw := range raws {
		if _, ok := builtins()[raw.name]; ok || raw.name == "auto" {
			errs = append(errs, &ThemeError{Path: raw.path, Field: "name", Err: fmt.Errorf("%q is a built-in theme name; give the theme another name", raw.name)})
			continue
		}
		if prev, ok := batch[raw.name]; ok {
			warnings = append(warnings, fmt.Sprintf("theme %s: name %q is also used by %s; using %s", raw.path, raw.name, prev.path, raw.path))
		}
		batch[raw.name] = raw
	}
	done := make(map[string]*Theme)
	var out []*Theme
	for _, raw := range raws {
		if b, ok := batch[raw.name]; !ok || b != raw {
			continue
		}
		t, err := s.resolve(raw, batch, done, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, t)
	}
	for _, t := range out {
		s.themes[t.Name] = t
	}
	return out, warnings, errors.Join(errs...)
}

// resolve builds raw on top of the theme it extends, resolving bases from
// the same batch first. chain detects cycles.
func (s *ThemeSet) resolve(raw *rawTheme, batch map[string]*rawTheme, done map[string]*Theme, chain []string) (*Theme, error) {
	if t, ok := done[raw.name]; ok {
		return t, nil
	}
	if slices.Contains(chain, raw.name) {
		return nil, &ThemeError{Path: raw.path, Field: "extends", Err: &cycleError{append(slices.Clone(chain), raw.name)}}
	}
	baseName := raw.extends
	if baseName == "" {
		baseName = "dark"
	}
	var base *Theme
	if b, ok := batch[baseName]; ok && baseName != raw.name {
		t, err := s.resolve(b, batch, done, append(chain, raw.name))
		if err != nil {
			if ce := (*cycleError)(nil); errors.As(err, &ce) {
				return nil, &ThemeError{Path: raw.path, Field: "extends", Err: ce}
			}
			return nil, &ThemeError{Path: raw.path, Field: "extends", Err: fmt.Errorf("base theme %q is broken; fix %s first", baseName, b.path)}
		}
		base = t
	} else if t, ok := s.themes[baseName]; ok && baseName != raw.name {
		base = t
	} else {
		return nil, &ThemeError{Path: raw.path, Field: "extends", Err: fmt.Errorf("no theme named %q; use dark, light or the name of another theme file", baseName)}
	}
	t := &Theme{Name: raw.name, Dark: base.Dark, Source: raw.path, Spinner: base.Spinner, colors: base.colors}
	switch raw.background {
	case "dark":
		t.Dark = true
	case "light":
		t.Dark = false
	}
	for r, c := range raw.colors {
		t.colors[r] = c
	}
	if raw.spinner.Frames != nil {
		t.Spinner.Frames = raw.spinner.Frames
	}
	if raw.spinner.Interval != 0 {
		t.Spinner.Interval = raw.spinner.Interval
	}
	done[raw.name] = t
	return t, nil
}

// cycleError reports themes that extend each other in a loop.
type cycleError struct{ chain []string }

func (e *cycleError) Error() string {
	return "themes extend each other in a cycle: " + strings.Join(e.chain, " → ") + "; make one of them extend dark or light"
}

// rawTheme is one theme file as written, before "extends" is applied.
type rawTheme struct {
	path       string
	name       string
	extends    string
	background string
	colors     map[Role]Color
	spinner    Spinner
}

// knownKeys are the top-level fields of a theme file; "description" and
// "author" are accepted for people and ignored.
var knownKeys = []string{"name", "extends", "background", "colors", "spinner", "description", "author", "$schema"}

// parseThemeFile decodes one theme file. Unknown fields and roles are
// warnings; anything that cannot be used is a *ThemeError naming the
// field.
func parseThemeFile(path string, data []byte) (*rawTheme, []string, error) {
	fail := func(field string, format string, args ...any) (*rawTheme, []string, error) {
		return nil, nil, &ThemeError{Path: path, Field: field, Err: fmt.Errorf(format, args...)}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, &ThemeError{Path: path, Err: jsonProblem(data, err)}
	}
	if top == nil {
		return fail("", "the file must hold a JSON object such as {\"name\": \"mine\", \"colors\": {}}")
	}
	var warnings []string
	raw := &rawTheme{path: path, colors: make(map[Role]Color)}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(knownKeys, k) {
			warnings = append(warnings, fmt.Sprintf("theme %s: %s: unknown field, ignored", path, k))
		}
	}
	for _, f := range []struct {
		key string
		dst *string
	}{{"name", &raw.name}, {"extends", &raw.extends}, {"background", &raw.background}} {
		if v, ok := top[f.key]; ok {
			if err := json.Unmarshal(v, f.dst); err != nil {
				return fail(f.key, "want a string, got %s", jsonKind(v))
			}
		}
	}
	if raw.name == "" {
		raw.name = defaultThemeName(path)
	}
	if err := checkThemeName(raw.name); err != nil {
		return fail("name", "%v", err)
	}
	if raw.background != "" && raw.background != "dark" && raw.background != "light" {
		return fail("background", "%q is neither \"dark\" nor \"light\"", raw.background)
	}
	if v, ok := top["colors"]; ok {
		var colors map[string]json.RawMessage
		if err := json.Unmarshal(v, &colors); err != nil || colors == nil {
			return fail("colors", "want an object of role names to colours, got %s", jsonKind(v))
		}
		names := make([]string, 0, len(colors))
		for n := range colors {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			role, ok := ParseRole(n)
			if !ok {
				warnings = append(warnings, fmt.Sprintf("theme %s: colors.%s: unknown colour role, ignored (docs/themes.md lists the roles)", path, n))
				continue
			}
			c, err := colorValue(colors[n])
			if err != nil {
				return fail("colors."+n, "%v", err)
			}
			raw.colors[role] = c
		}
	}
	if v, ok := top["spinner"]; ok {
		sp, warns, err := spinnerValue(path, v)
		if err != nil {
			return nil, nil, err
		}
		warnings = append(warnings, warns...)
		raw.spinner = sp
	}
	return raw, warnings, nil
}

// colorValue reads a colour written as a JSON string or number.
func colorValue(v json.RawMessage) (Color, error) {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return Color{}, err
		}
		return ParseColor(s)
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		return Color{}, fmt.Errorf("want a string such as \"#89b4fa\" or \"red\", or a number 0-255, got %s", jsonKind(v))
	}
	if f != math.Trunc(f) || f < 0 || f > 255 {
		return Color{}, fmt.Errorf("%s is not an xterm-256 index (a whole number 0-255)", v)
	}
	return Color{Kind: Color256, Value: uint32(f)}, nil
}

// spinnerValue reads {"frames": [...], "interval_ms": n}.
func spinnerValue(path string, v json.RawMessage) (Spinner, []string, error) {
	fail := func(field, format string, args ...any) (Spinner, []string, error) {
		return Spinner{}, nil, &ThemeError{Path: path, Field: field, Err: fmt.Errorf(format, args...)}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(v, &obj); err != nil || obj == nil {
		return fail("spinner", "want an object with \"frames\" and \"interval_ms\", got %s", jsonKind(v))
	}
	var sp Spinner
	var warnings []string
	for k := range obj {
		if k != "frames" && k != "interval_ms" {
			warnings = append(warnings, fmt.Sprintf("theme %s: spinner.%s: unknown field, ignored", path, k))
		}
	}
	slices.Sort(warnings)
	if f, ok := obj["frames"]; ok {
		var frames []string
		if err := json.Unmarshal(f, &frames); err != nil {
			return fail("spinner.frames", "want an array of strings, got %s", jsonKind(f))
		}
		if len(frames) == 0 {
			return fail("spinner.frames", "needs at least one frame")
		}
		for i, fr := range frames {
			if fr == "" || strings.ContainsFunc(fr, unicode.IsControl) {
				return fail(fmt.Sprintf("spinner.frames[%d]", i), "%q must be non-empty printable text", fr)
			}
			if w := StringWidth(fr); w > 8 {
				return fail(fmt.Sprintf("spinner.frames[%d]", i), "%q is %d cells wide; frames may be at most 8", fr, w)
			}
		}
		sp.Frames = frames
	}
	if iv, ok := obj["interval_ms"]; ok {
		var ms float64
		if err := json.Unmarshal(iv, &ms); err != nil || ms != math.Trunc(ms) || ms < 16 || ms > 10000 {
			return fail("spinner.interval_ms", "want a whole number of milliseconds from 16 to 10000, got %s", bytes.TrimSpace(iv))
		}
		sp.Interval = time.Duration(ms) * time.Millisecond
	}
	return sp, warnings, nil
}

// defaultThemeName names a theme without a "name" field after its file.
func defaultThemeName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".json")
	if base != "theme" {
		return base
	}
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "themes" {
		dir = filepath.Dir(dir)
	}
	return filepath.Base(dir)
}

// checkThemeName rejects names that cannot be typed or would shadow the
// built-ins.
func checkThemeName(name string) error {
	switch {
	case name == "" || name == "." || name == string(filepath.Separator):
		return errors.New("the theme needs a name")
	case len(name) > 64:
		return fmt.Errorf("%q is longer than 64 bytes", name)
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }):
		return fmt.Errorf("%q contains spaces or control characters", name)
	}
	return nil
}

// jsonKind names the JSON type of v for messages.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// jsonProblem turns a decoding error into "line L, column C: cause".
func jsonProblem(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var off int64
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		return errors.New("the file must hold a JSON object such as {\"name\": \"mine\", \"colors\": {}}")
	default:
		return fmt.Errorf("invalid JSON: %v", err)
	}
	line, col := 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Errorf("line %d, column %d: invalid JSON: %v", line, col, err)
}
