package ansi

import (
	"embed"
	"strconv"
	"strings"
	"time"
)

// Role names one use of colour in the interface. Themes map every role to a
// colour; Theme.Style adds the role's fixed attributes (headings are bold,
// links underlined, comments italic, ...). Roles whose name ends in "_bg"
// are background colours.
type Role uint8

// The colour roles. Their theme-file names are listed in roleNames and in
// docs/themes.md.
const (
	RoleText Role = iota
	RoleMuted
	RoleDim
	RoleAccent
	RoleBorder
	RoleUserMessage
	RoleUserMessageBG
	RoleAssistantText
	RoleThinking
	RoleToolTitle
	RoleToolOutput
	RoleSuccess
	RoleWarn
	RoleError
	RoleInfo
	RoleDiffAdded
	RoleDiffRemoved
	RoleDiffContext
	RoleDiffAddedBG
	RoleDiffRemovedBG
	RoleDiffHunk
	RoleDiffLineNumber
	RoleMDHeading
	RoleMDLink
	RoleMDCode
	RoleMDCodeBG
	RoleMDCodeBlock
	RoleMDQuote
	RoleMDListBullet
	RoleMDRule
	RoleMDTableBorder
	RoleSyntaxKeyword
	RoleSyntaxString
	RoleSyntaxNumber
	RoleSyntaxComment
	RoleSyntaxFunction
	RoleSyntaxType
	RoleSyntaxOperator
	RoleSyntaxPunctuation
	RoleSyntaxBuiltin
	RoleSpinner
	RoleStatusBar
	RoleStatusBarBG
	RoleNoteInfo
	RoleNoteSuccess
	RoleNoteWarn
	RoleNoteError
	RolePanelBorder
	RolePanelTitle
	RoleSelection
	RoleSelectionBG
	roleCount
)

// roleNames are the theme-file names of the roles, indexed by Role.
var roleNames = [roleCount]string{
	RoleText:              "text",
	RoleMuted:             "muted",
	RoleDim:               "dim",
	RoleAccent:            "accent",
	RoleBorder:            "border",
	RoleUserMessage:       "user_message",
	RoleUserMessageBG:     "user_message_bg",
	RoleAssistantText:     "assistant_text",
	RoleThinking:          "thinking",
	RoleToolTitle:         "tool_title",
	RoleToolOutput:        "tool_output",
	RoleSuccess:           "success",
	RoleWarn:              "warn",
	RoleError:             "error",
	RoleInfo:              "info",
	RoleDiffAdded:         "diff_added",
	RoleDiffRemoved:       "diff_removed",
	RoleDiffContext:       "diff_context",
	RoleDiffAddedBG:       "diff_added_bg",
	RoleDiffRemovedBG:     "diff_removed_bg",
	RoleDiffHunk:          "diff_hunk",
	RoleDiffLineNumber:    "diff_line_number",
	RoleMDHeading:         "md_heading",
	RoleMDLink:            "md_link",
	RoleMDCode:            "md_code",
	RoleMDCodeBG:          "md_code_bg",
	RoleMDCodeBlock:       "md_code_block",
	RoleMDQuote:           "md_quote",
	RoleMDListBullet:      "md_list_bullet",
	RoleMDRule:            "md_rule",
	RoleMDTableBorder:     "md_table_border",
	RoleSyntaxKeyword:     "syntax_keyword",
	RoleSyntaxString:      "syntax_string",
	RoleSyntaxNumber:      "syntax_number",
	RoleSyntaxComment:     "syntax_comment",
	RoleSyntaxFunction:    "syntax_function",
	RoleSyntaxType:        "syntax_type",
	RoleSyntaxOperator:    "syntax_operator",
	RoleSyntaxPunctuation: "syntax_punctuation",
	RoleSyntaxBuiltin:     "syntax_builtin",
	RoleSpinner:           "spinner",
	RoleStatusBar:         "status_bar",
	RoleStatusBarBG:       "status_bar_bg",
	RoleNoteInfo:          "note_info",
	RoleNoteSuccess:       "note_success",
	RoleNoteWarn:          "note_warn",
	RoleNoteError:         "note_error",
	RolePanelBorder:       "panel_border",
	RolePanelTitle:        "panel_title",
	RoleSelection:         "selection",
	RoleSelectionBG:       "selection_bg",
}

// roleAttrs are the attributes a role always carries, whatever its colour.
// They survive ProfileMono (NO_COLOR), which keeps the structure readable.
func roleAttrs() map[Role]Style {
	return roleAttrsLazy.get(func() map[Role]Style {
		return map[Role]Style{
			RoleDim:           {Dim: true},
			RoleThinking:      {Italic: true},
			RoleToolTitle:     {Bold: true},
			RoleMDHeading:     {Bold: true},
			RoleMDLink:        {Underline: true},
			RoleSyntaxComment: {Italic: true},
			RolePanelTitle:    {Bold: true},
			RoleDiffAddedBG:   {Bold: true},
			RoleDiffRemovedBG: {Bold: true},
		}
	})
}

var roleAttrsLazy lazy[map[Role]Style]

// String returns the role's theme-file name.
func (r Role) String() string {
	if r < roleCount {
		return roleNames[r]
	}
	return "role(" + strconv.Itoa(int(r)) + ")"
}

// IsBackground reports whether the role is a background colour.
func (r Role) IsBackground() bool { return strings.HasSuffix(r.String(), "_bg") }

// Roles returns every role in theme-file order.
func Roles() []Role {
	rs := make([]Role, roleCount)
	for i := range rs {
		rs[i] = Role(i)
	}
	return rs
}

// ParseRole returns the role with the theme-file name name.
func ParseRole(name string) (Role, bool) {
	for i, n := range roleNames {
		if n == name {
			return Role(i), true
		}
	}
	return 0, false
}

// Spinner is the animation shown while the model works.
type Spinner struct {
	Frames   []string
	Interval time.Duration
}

// Frame returns the frame to show at tick n (any n, also negative).
func (s Spinner) Frame(n int) string {
	if len(s.Frames) == 0 {
		return ""
	}
	n %= len(s.Frames)
	if n < 0 {
		n += len(s.Frames)
	}
	return s.Frames[n]
}

// Theme is a complete set of role colours and a spinner. A Theme is
// immutable once built, so it is safe to share between goroutines. The
// methods of a nil *Theme answer for the built-in dark theme.
type Theme struct {
	// Name is the name the user selects the theme by.
	Name string
	// Dark reports whether the theme is made for a dark background.
	Dark bool
	// Source is the file the theme came from, or "built-in".
	Source string
	// Spinner is the theme's spinner.
	Spinner Spinner

	colors [roleCount]Color
}

// Color returns the colour of role r.
func (t *Theme) Color(r Role) Color {
	if t == nil {
		t = DarkTheme()
	}
	if r >= roleCount {
		return Color{}
	}
	return t.colors[r]
}

// SetColor sets the colour of role r (a role out of range is ignored).
func (t *Theme) SetColor(r Role, c Color) {
	if r < roleCount {
		t.colors[r] = c
	}
}

// Style returns the style of role r: its colour as foreground (background
// for "_bg" roles) plus the role's fixed attributes.
func (t *Theme) Style(r Role) Style {
	s := roleAttrs()[r]
	if r.IsBackground() {
		s.BG = t.Color(r)
	} else {
		s.FG = t.Color(r)
	}
	return s
}

// Swatch renders one line per role, "name  sample", each sample in the
// role's style under profile p, cut to width. It shows a theme in
// /settings and in tests.
func (t *Theme) Swatch(p Profile, width int) []string {
	if t == nil {
		t = DarkTheme()
	}
	lines := make([]string, 0, roleCount+1)
	head := []Span{{Text: t.Name + " ", Style: t.Style(RoleAccent).With(Style{Bold: true})}, {Text: t.Spinner.Frame(0), Style: t.Style(RoleSpinner)}}
	lines = append(lines, ClampLine(RenderSpans(head, p, false), width))
	for _, r := range Roles() {
		sample := "Sample text 123"
		st := t.Style(r)
		if r.IsBackground() {
			st.FG = t.Color(RoleText)
		}
		spans := []Span{{Text: PadRight(r.String(), 20)}, {Text: sample, Style: st}, {Text: " " + t.Color(r).String(), Style: t.Style(RoleMuted)}}
		lines = append(lines, ClampLine(RenderSpans(spans, p, false), width))
	}
	return lines
}

// With returns s With the attributes and colours of o added; o's colours win
// where o sets them.
func (s Style) With(o Style) Style {
	if o.FG.Kind != ColorDefault {
		s.FG = o.FG
	}
	if o.BG.Kind != ColorDefault {
		s.BG = o.BG
	}
	s.Bold = s.Bold || o.Bold
	s.Dim = s.Dim || o.Dim
	s.Italic = s.Italic || o.Italic
	s.Underline = s.Underline || o.Underline
	s.Reverse = s.Reverse || o.Reverse
	s.Strike = s.Strike || o.Strike
	return s
}

//go:embed themes/*.json
var builtinFiles embed.FS

// builtins parses the embedded dark and light themes once.
func builtins() map[string]*Theme {
	return builtinsLazy.get(buildBuiltins)
}

// buildBuiltins makes what builtins returns.
func buildBuiltins() map[string]*Theme {
	m := make(map[string]*Theme)
	for _, name := range []string{"dark", "light"} {
		path := "themes/" + name + ".json"
		data, err := builtinFiles.ReadFile(path)
		if err != nil {
			panic("tui: built-in theme missing: " + err.Error())
		}
		raw, _, err := parseThemeFile(path, data)
		if err != nil {
			panic("tui: built-in theme broken: " + err.Error())
		}
		t := &Theme{Name: raw.name, Dark: raw.background != "light", Source: "built-in", Spinner: raw.spinner}
		for r, c := range raw.colors {
			t.colors[r] = c
		}
		m[name] = t
	}
	return m
}

var builtinsLazy lazy[map[string]*Theme]

// DarkTheme returns the built-in dark theme.
func DarkTheme() *Theme { return builtins()["dark"] }

// LightTheme returns the built-in light theme.
func LightTheme() *Theme { return builtins()["light"] }

// ClampLine cuts a rendered line to width cells with an ellipsis; the
// last guard that keeps every line inside the terminal.
func ClampLine(s string, width int) string {
	if StringWidth(s) <= width {
		return s
	}
	return Truncate(s, max(width, 0), "…")
}
