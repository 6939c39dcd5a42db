package tui

import (
	"fmt"
	"github.com/zut-go/zut/tui/ansi"
	"github.com/zut-go/zut/tui/markdown"
	"strings"
	"testing"
	"time"
)

var chatNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// plainChat returns a Chat without colours.
func plainChat(w, h int) *Chat {
	return NewChat(w, h, ChatOptions{Profile: ansi.ProfileNone})
}

// streamDoc is markdown with every kind of block the stream tests feed.
const streamDoc = "# Title\n\nA paragraph that is long enough to wrap over more than one line of the terminal.\n\n- one\n- two\n\n```go\nfunc f() int {\n\treturn 1\n}\n```\n\n> quoted\n\nThe end."

// TestChatStreamCommits feeds a document in pieces: what is committed never
// changes, and at the end the commits equal the one-shot rendering.
func TestChatStreamCommits(t *testing.T) {
	for _, size := range []int{1, 3, 7, 40} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			c := plainChat(40, 12)
			c.BeginMessage()
			var committed []string
			for i := 0; i < len(streamDoc); i += size {
				c.AppendText(streamDoc[i:min(i+size, len(streamDoc))])
				f := c.Frame(chatNow)
				committed = append(committed, f.Commit...)
			}
			c.EndMessage(streamDoc)
			f := c.Frame(chatNow)
			committed = append(committed, f.Commit...)
			want := markdown.Render(streamDoc, markdown.Options{Width: 40, Profile: ansi.ProfileNone, Role: ansi.RoleAssistantText})
			if got := strings.Join(committed, "\n"); got != strings.Join(want, "\n") {
				t.Errorf("committed lines (chunks of %d):\n%s\nwant:\n%s", size, got, strings.Join(want, "\n"))
			}
			if c.Busy() {
				t.Errorf("items still live after the message ended")
			}
		})
	}
}

// TestChatToolCommitsWhenDone keeps a tool call live until its result,
// and items after it wait behind it.
func TestChatToolCommitsWhenDone(t *testing.T) {
	c := plainChat(50, 12)
	c.StartTool("t1", "bash")
	c.ToolArgs("t1", `{"command":"ls -l`)
	f := c.Frame(chatNow)
	if len(f.Commit) != 0 || !strings.Contains(strings.Join(f.Live, "\n"), "$ ls -l") {
		t.Fatalf("streaming call: commit %q, live %q", f.Commit, f.Live)
	}
	c.ToolRunning("t1", chatNow)
	c.AddNotice("info", "", "a notice after the call")
	f = c.Frame(chatNow.Add(2 * time.Second))
	if len(f.Commit) != 0 || !strings.Contains(strings.Join(f.Live, "\n"), "2.0s") {
		t.Fatalf("running call: commit %q, live %q", f.Commit, f.Live)
	}
	c.ToolDone("t1", "bash", "a\nb", false, nil, chatNow.Add(3*time.Second))
	f = c.Frame(chatNow)
	got := strings.Join(f.Commit, "\n")
	for _, want := range []string{"✓ bash $ ls -l  3.0s", "  a", "  b", "● a notice after the call"} {
		if !strings.Contains(got, want) {
			t.Errorf("commit after the result lacks %q:\n%s", want, got)
		}
	}
}

// TestChatToolProgressReplaces: each progress text replaces the one
// before (Kit's OnProgress pattern), it is not appended to it.
func TestChatToolProgressReplaces(t *testing.T) {
	c := plainChat(50, 12)
	c.StartTool("t1", "deploy")
	c.ToolRunning("t1", chatNow)
	for _, p := range []string{"step 1", "step 2", "step 3"} {
		c.ToolProgress("t1", p)
	}
	live := strings.Join(c.Frame(chatNow).Live, "\n")
	if !strings.Contains(live, "step 3") || strings.Contains(live, "step 2") || strings.Contains(live, "step 1") {
		t.Errorf("live view after three progress frames:\n%s\nwant only the last, step 3", live)
	}
}

// TestChatHoldTool keeps a finished call live while an extension renders
// it.
func TestChatHoldTool(t *testing.T) {
	c := plainChat(50, 12)
	c.StartTool("t1", "weather")
	c.ToolDone("t1", "weather", "16", false, nil, time.Time{})
	c.HoldTool("t1", true)
	if f := c.Frame(chatNow); len(f.Commit) != 0 {
		t.Fatalf("a held call was committed: %q", f.Commit)
	}
	if !c.SetToolLook("t1", ToolLook{Header: "Berlin: 16°C", Body: "**fog**", BodyMarkdown: true}) {
		t.Fatal("SetToolLook found no live call")
	}
	c.HoldTool("t1", false)
	got := strings.Join(c.Frame(chatNow).Commit, "\n")
	if !strings.Contains(got, "✓ Berlin: 16°C") || !strings.Contains(got, "  fog") {
		t.Errorf("the extension's rendering is not used:\n%s", got)
	}
}

// TestChatGaps puts a blank line between text and tool calls.
func TestChatGaps(t *testing.T) {
	c := plainChat(30, 20)
	c.AddUser("hi")
	c.BeginMessage()
	c.AppendText("Looking.")
	c.StartTool("t1", "read")
	c.ToolDone("t1", "read", "x", false, nil, time.Time{})
	c.BeginMessage()
	c.AppendText("Done.")
	c.EndMessage("Done.")
	var got []string
	for _, l := range c.Frame(chatNow).Commit {
		got = append(got, strings.TrimRight(l, " "))
	}
	want := []string{"", "› hi", "", "Looking.", "", "✓ read", "  x", "", "Done."}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("commits = %q, want %q", got, want)
	}
}

// TestChatResizeMidStream changes the width while an answer streams:
// nothing is committed twice and the rest follows the new width.
func TestChatResizeMidStream(t *testing.T) {
	c := plainChat(60, 10)
	c.BeginMessage()
	c.AppendText("First paragraph, committed at sixty columns.\n\nSecond paragraph ")
	commits := c.Frame(chatNow).Commit
	c.Resize(20, 10)
	c.AppendText("continues after the resize.\n\nThird.")
	commits = append(commits, c.Frame(chatNow).Commit...)
	c.EndMessage("")
	commits = append(commits, c.Frame(chatNow).Commit...)
	all := strings.Join(commits, "\n")
	for _, w := range []string{"First", "Second", "Third."} {
		if n := strings.Count(all, w); n != 1 {
			t.Errorf("%q committed %d times:\n%s", w, n, all)
		}
	}
	for _, l := range commits[2:] {
		if ansi.StringWidth(l) > 20 {
			t.Errorf("line %q after the resize is wider than 20 cells", l)
		}
	}
}

func TestChatActivityLine(t *testing.T) {
	tests := []struct {
		name string
		a    Activity
		want string
	}{
		{"working", Activity{Label: "Working", Since: chatNow.Add(-12 * time.Second), Detail: "↓ 340 tokens", Hint: "esc to interrupt"}, "⠋ Working… 12s · ↓ 340 tokens · esc to interrupt"},
		{"minutes", Activity{Label: "Compacting", Since: chatNow.Add(-75 * time.Second)}, "Compacting… 1m15s"},
		{"retry", Activity{Label: "Working", Since: chatNow, RetryAt: chatNow.Add(2500 * time.Millisecond), Retry: "attempt 2 of 5: overloaded"}, "Retrying in 3s · attempt 2 of 5: overloaded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := plainChat(80, 10)
			a := tc.a
			c.SetActivity(&a)
			got := strings.Join(c.Frame(chatNow).Live, "\n")
			if !strings.Contains(got, tc.want) {
				t.Errorf("Frame = %q, want a line containing %q", got, tc.want)
			}
		})
	}
}

func TestChatChrome(t *testing.T) {
	c := plainChat(60, 20)
	c.AddNote(Note{Source: "a", Level: "warn", Text: "from a"})
	c.AddNote(Note{Source: "b", Text: "from b", Display: true})
	c.ClearNotes("a", false)
	c.SetStatus(StatusItem{Source: "x", Key: "k1", Text: "second", Priority: 5})
	c.SetStatus(StatusItem{Source: "y", Key: "k2", Text: "first", Priority: 1})
	c.SetWidget(Widget{Source: "x", ID: "w", Title: "Progress", Lines: []string{"\x1b[2Jhalf done"}})
	live := strings.Join(c.Frame(chatNow).Live, "\n")
	for _, want := range []string{"[b] from b", "first  second", "Progress", "  half done"} {
		if !strings.Contains(live, want) {
			t.Errorf("live region lacks %q:\n%s", want, live)
		}
	}
	if strings.Contains(live, "from a") || strings.Contains(live, "\x1b[2J") {
		t.Errorf("live region shows a cleared note or an escape sequence:\n%q", live)
	}
	c.ClearSource("x")
	live = strings.Join(c.Frame(chatNow).Live, "\n")
	if strings.Contains(live, "Progress") || strings.Contains(live, "second") || !strings.Contains(live, "first") {
		t.Errorf("ClearSource left the wrong chrome:\n%s", live)
	}
}

// TestChatPanelReplacesEditor draws the panel in the editor's place, cut
// to the terminal.
func TestChatPanelReplacesEditor(t *testing.T) {
	c := plainChat(30, 8)
	c.Editor = &Editor{}
	c.Editor.SetText("draft")
	var lines []string
	for i := 0; i < 20; i++ {
		lines = append(lines, fmt.Sprintf("item %d", i))
	}
	c.SetPanel(&Panel{Source: "todo", ID: "p", Title: "Todos", Lines: lines})
	f := c.Frame(chatNow)
	live := strings.Join(f.Live, "\n")
	if strings.Contains(live, "draft") || !strings.Contains(live, "Todos") || !strings.Contains(live, "lines") || f.CursorRow >= 0 {
		t.Errorf("panel frame (cursor %d):\n%s", f.CursorRow, live)
	}
	if len(f.Live) > 8 {
		t.Errorf("panel takes %d rows of an 8-row terminal", len(f.Live))
	}
	c.SetPanel(nil)
	if live := strings.Join(c.Frame(chatNow).Live, "\n"); !strings.Contains(live, "draft") {
		t.Errorf("the editor does not come back with its text:\n%s", live)
	}
}

func TestListKeys(t *testing.T) {
	l := &List{Title: "Model", Filter: true, Items: []ListItem{{Label: "alpha", Value: "a"}, {Label: "beta", Value: "b"}, {Label: "gamma", Value: "g"}}}
	for _, k := range []string{"down", "down", "down"} {
		key, _ := ParseKey(k)
		l.HandleKey(key)
	}
	if it, _ := l.Current(); it.Value != "a" {
		t.Errorf("after three downs the selection is %q, want a (wraps)", it.Value)
	}
	for _, r := range "mm" {
		l.HandleKey(Key{Code: KeyRune, Rune: r})
	}
	if it, _ := l.Current(); it.Value != "g" {
		t.Errorf("filter mm selects %q, want g", it.Value)
	}
	if a := l.HandleKey(Key{Code: KeyEnter}); a != ListChoose {
		t.Errorf("enter = %v, want ListChoose", a)
	}
	if a := l.HandleKey(Key{Code: KeyEsc}); a != ListCancel {
		t.Errorf("esc = %v, want ListCancel", a)
	}
	lines, _, _ := l.Render(30, 10, ansi.DarkTheme(), ansi.ProfileNone)
	if got := strings.Join(lines, "\n"); !strings.Contains(got, "› ") || !strings.Contains(got, "gamma") || strings.Contains(got, "beta") {
		t.Errorf("filtered list:\n%s", got)
	}
}

func TestPromptDialog(t *testing.T) {
	d := &Prompt{Title: "Name", Message: "What should the branch be called?"}
	for _, r := range "fix" {
		d.HandleKey(Key{Code: KeyRune, Rune: r})
	}
	lines, row, col := d.Render(40, 10, ansi.DarkTheme(), ansi.ProfileNone)
	if row < 0 || !strings.Contains(lines[row], "› fix") || col != 7 {
		t.Errorf("cursor %d,%d in:\n%s", row, col, strings.Join(lines, "\n"))
	}
	text, done, cancelled := d.HandleKey(Key{Code: KeyEnter})
	if !done || cancelled || text != "fix" {
		t.Errorf("enter = %q, %v, %v; want fix, true, false", text, done, cancelled)
	}
}

// FuzzChatFrame streams any text as an answer, reasoning and tool output:
// nothing panics and no line is wider than the terminal.
func FuzzChatFrame(f *testing.F) {
	f.Add("# hi\n\n```go\nx := 1\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n", 20, 3)
	f.Add("\x1b[2J\x1b]0;title\x07日本語👍🏽\t\r\n- [x] done", 7, 1)
	f.Add("plain", 1, 5)
	f.Fuzz(func(t *testing.T, text string, width, chunk int) {
		if width < 1 || width > 300 || chunk < 1 || len(text) > 4000 {
			return
		}
		c := NewChat(width, 10, ChatOptions{Profile: ansi.ProfileTrueColor})
		c.Editor = &Editor{}
		c.AddUser(text)
		c.BeginMessage()
		c.StartTool("t", "bash")
		c.ToolArgs("t", text)
		c.AppendThinking(text)
		check := func(f Frame) {
			for _, l := range append(f.Commit, f.Live...) {
				if w := ansi.StringWidth(l); w > width {
					t.Fatalf("line %q is %d cells wide, terminal %d", l, w, width)
				}
			}
		}
		for i := 0; i < len(text); i += chunk {
			c.AppendText(text[i:min(i+chunk, len(text))])
			c.ToolProgress("t", text[i:min(i+chunk, len(text))])
			check(c.Frame(chatNow))
		}
		c.ToolDone("t", "bash", text, true, &ToolDiff{Old: text, New: text + "x"}, chatNow)
		c.AddNote(Note{Source: text, Level: "warn", Text: text})
		c.SetPanel(&Panel{Title: text, Lines: []string{text}, Footer: text})
		c.EndMessage(text)
		check(c.Frame(chatNow))
	})
}

// TestChatRightRail: a right_bar widget gets a side rail beside the editor
// on a wide terminal, and is drawn above the editor on a narrow one.
func TestChatRightRail(t *testing.T) {
	tests := []struct {
		name  string
		width int
		rail  bool
	}{
		{"wide", 120, true},
		{"narrow", 80, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := plainChat(tc.width, 20)
			c.Editor = &Editor{}
			c.SetWidget(Widget{Source: "todo", ID: "list", Title: "Todo", Lines: []string{"1. milk", "2. bread"}, Right: true})
			f := c.Frame(chatNow)
			var withSep, railLine, shown int
			for i, l := range f.Live {
				if w := ansi.StringWidth(l); w > tc.width {
					t.Errorf("line %d is %d cells wide, more than %d: %q", i, w, tc.width, l)
				}
				if strings.Contains(l, "│") {
					withSep++
				}
				if strings.Contains(l, "2. bread") {
					railLine = i
					shown++
				}
			}
			if shown != 1 {
				t.Errorf("the widget is drawn %d times, want once:\n%s", shown, strings.Join(f.Live, "\n"))
			}
			if got := withSep > 0; got != tc.rail {
				t.Fatalf("rail drawn = %v, want %v:\n%s", got, tc.rail, strings.Join(f.Live, "\n"))
			}
			if tc.rail && !strings.HasSuffix(strings.TrimRight(f.Live[railLine], " "), "2. bread") {
				t.Errorf("the rail is not at the right edge:\n%s", strings.Join(f.Live, "\n"))
			}
			if !tc.rail && railLine >= f.CursorRow {
				t.Errorf("narrow: the widget is not above the editor (line %d, cursor row %d)", railLine, f.CursorRow)
			}
		})
	}
}

// TestChatPrintMarkdownNotes: an info or error note with markdown is
// rendered as markdown, not shown as its source.
func TestChatPrintMarkdownNotes(t *testing.T) {
	for _, style := range []string{"info", "error"} {
		t.Run(style, func(t *testing.T) {
			c := plainChat(60, 20)
			c.AddPrint(Print{Source: "plan", Style: style, Text: "**Plan** is `on`", Markdown: true})
			got := strings.Join(c.Frame(chatNow).Commit, "\n")
			if strings.Contains(got, "**") || strings.Contains(got, "`") || !strings.Contains(got, "Plan is on") || !strings.Contains(got, "[plan]") {
				t.Errorf("note:\n%s\nwant the markdown rendered under the note's mark", got)
			}
		})
	}
}
