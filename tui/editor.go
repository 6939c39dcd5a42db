package tui

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// EditAction tells the caller of Editor.HandleKey what became of a key.
type EditAction uint8

const (
	// EditHandled: the editor used the key; redraw.
	EditHandled EditAction = iota
	// EditIgnored: the key means nothing to the editor (Esc with no menu
	// open, Ctrl+C, Ctrl+D on an empty editor, ...); the caller decides.
	EditIgnored
	// EditSubmit: Enter was pressed; call Submit to take the text.
	EditSubmit
)

// Default thresholds above which a bracketed paste is collapsed to a
// marker in the editor.
const (
	DefaultPasteLines = 10
	DefaultPasteChars = 1000
)

// Editor is a multi-line line editor: it takes keys and pastes, keeps the
// text and the cursor, and renders itself into lines for a given width.
// It never touches a terminal. Its zero value is ready to use; the
// exported fields configure it. It is not safe for concurrent use.
//
// Keys follow readline and Emacs where they have a meaning there: Enter
// submits; Shift+Enter, Alt+Enter, Ctrl+J and Enter after a backslash
// insert a newline; Ctrl+A/E, Home/End go to the start and end of the
// line; Ctrl+B/F and arrows move by grapheme cluster, Alt+B/F and
// Ctrl+arrows by word; Up/Down move by visual row and walk the History at
// the first and last row; Ctrl+K/U/W, Alt+D, Alt+Backspace kill into the
// kill ring, Ctrl+Y yanks and Alt+Y rotates the yank; Ctrl+_ undoes.
type Editor struct {
	// Placeholder is shown, through PlaceholderStyle when set, while the
	// editor is empty.
	Placeholder      string
	PlaceholderStyle func(string) string
	// UndoOnCtrlZ makes Ctrl+Z undo, for terminals where it does not
	// suspend (the kitty keyboard protocol).
	UndoOnCtrlZ bool
	// History, when set, is walked with Up and Down and receives every
	// submitted text.
	History *History
	// Completer, when set, feeds the completion menu.
	Completer Completer
	// PasteLines and PasteChars are the sizes above which a paste becomes
	// a marker; zero means DefaultPasteLines and DefaultPasteChars.
	PasteLines, PasteChars int

	text string
	cur  int // byte offset of the cursor in text

	undo     []editState
	lastEdit editKind

	kills     []string // kill ring, most recent last
	killing   bool     // the last command killed text
	chainKill bool     // the command before this one killed text
	yankFrom  int      // start of the text the last yank inserted, or -1 after other edits
	yankIdx   int      // ring index of that text

	goalCol     int // column kept by consecutive vertical moves, or -1
	lastWidth   int // width of the last Render, for vertical motion
	layoutWidth int // width of the last layout, for tab widths

	pastes   map[string]string // marker text -> pasted content
	pasteSeq int

	histPos int    // index in History while walking it; History.Len() when not
	draft   string // the text being edited before walking the history
	walking bool

	menu *Menu
}

// editState is one undo step.
type editState struct {
	text string
	cur  int
}

// editKind classifies edits so that runs of typing undo together.
type editKind uint8

const (
	editNone editKind = iota
	editType
	editDelete
	editOther
)

const (
	maxUndo  = 200
	maxKills = 16
)

// Text returns the text as edited, paste markers included.
func (e *Editor) Text() string { return e.text }

// Value returns the text with paste markers replaced by what was pasted.
func (e *Editor) Value() string {
	v := e.text
	for marker, content := range e.pastes {
		v = strings.ReplaceAll(v, marker, content)
	}
	return v
}

// Empty reports whether there is no text.
func (e *Editor) Empty() bool { return e.text == "" }

// Cursor returns the cursor's byte offset in Text.
func (e *Editor) Cursor() int { return e.cur }

// SetText replaces the text, puts the cursor at its end and forgets the
// undo history and the menu.
func (e *Editor) SetText(s string) {
	e.text = cleanInput(s)
	e.cur = len(e.text)
	e.undo = e.undo[:0]
	e.lastEdit = editNone
	e.goalCol = -1
	e.menu = nil
}

// Reset empties the editor, forgetting pastes, undo and the history walk.
func (e *Editor) Reset() {
	e.SetText("")
	e.pastes = nil
	e.walking = false
}

// Clear empties the editor as one step that undo (Ctrl+_) reverts, so
// that text cleared by mistake can come back. Paste markers keep their
// contents for that.
func (e *Editor) Clear() {
	if e.text == "" {
		return
	}
	e.edit(editOther)
	e.text, e.cur = "", 0
	e.lastEdit = editNone
	e.menu = nil
	e.walking = false
}

// Submit returns the Value, adds the text to the History (when set and
// the text is not blank) and empties the editor. A History that fails to
// persist does not lose the text; the error is returned alongside it.
func (e *Editor) Submit() (string, error) {
	v := e.Value()
	var err error
	if e.History != nil && strings.TrimSpace(v) != "" {
		err = e.History.Add(v)
	}
	e.Reset()
	return v, err
}

// Insert puts s at the cursor, as typed text (the extension protocol's
// insert action).
func (e *Editor) Insert(s string) {
	s = cleanInput(s)
	if s == "" {
		return
	}
	e.edit(editOther)
	e.insertRaw(s)
	e.complete(false)
}

// Paste inserts pasted text at the cursor. Text over PasteLines lines or
// PasteChars characters goes in as a marker such as "[paste #1 +120
// lines]" that Value and Submit expand again.
func (e *Editor) Paste(s string) {
	if s == "" {
		return
	}
	// A final line end ends the last line; it starts none.
	lines := strings.Count(strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r"), "\n") + 1
	chars := utf8.RuneCountInString(s)
	maxLines, maxChars := e.PasteLines, e.PasteChars
	if maxLines <= 0 {
		maxLines = DefaultPasteLines
	}
	if maxChars <= 0 {
		maxChars = DefaultPasteChars
	}
	e.edit(editOther)
	if lines <= maxLines && chars <= maxChars {
		e.insertRaw(cleanInput(s))
		e.complete(false)
		return
	}
	e.pasteSeq++
	var marker string
	if lines > 1 {
		marker = "[paste #" + strconv.Itoa(e.pasteSeq) + " +" + strconv.Itoa(lines) + " lines]"
	} else {
		marker = "[paste #" + strconv.Itoa(e.pasteSeq) + " " + strconv.Itoa(chars) + " chars]"
	}
	if e.pastes == nil {
		e.pastes = map[string]string{}
	}
	e.pastes[marker] = s
	e.insertRaw(marker)
}

// cleanInput keeps newlines and tabs and drops the other control
// characters and invalid UTF-8, which the editor could not show.
func cleanInput(s string) string {
	ok := true
	for _, r := range s {
		if r == utf8.RuneError || (isControl(r) && r != '\n' && r != '\t') {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == utf8.RuneError || (isControl(r) && r != '\n' && r != '\t') {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }

// edit records an undo step before a change of the given kind. Runs of
// typing and of deleting share one step, broken at word boundaries.
func (e *Editor) edit(kind editKind) {
	e.goalCol = -1
	e.walking = false
	if kind == e.lastEdit && (kind == editType || kind == editDelete) {
		return
	}
	e.lastEdit = kind
	e.undo = append(e.undo, editState{e.text, e.cur})
	if len(e.undo) > maxUndo {
		e.undo = append(e.undo[:0], e.undo[len(e.undo)-maxUndo:]...)
	}
}

func (e *Editor) insertRaw(s string) {
	e.text = e.text[:e.cur] + s + e.text[e.cur:]
	e.cur += len(s)
	e.yankFrom = -1
}

// deleteRange removes text[a:b] and puts the cursor at a.
func (e *Editor) deleteRange(a, b int) string {
	gone := e.text[a:b]
	e.text = e.text[:a] + e.text[b:]
	e.cur = a
	e.yankFrom = -1
	return gone
}

// HandleKey applies a key and says what became of it.
func (e *Editor) HandleKey(k Key) EditAction {
	if k.Action == KeyRelease {
		return EditIgnored
	}
	e.chainKill, e.killing = e.killing, false
	if e.menu != nil {
		if act, ok := e.menuKey(k); ok {
			return act
		}
	}
	if text := k.Text(); text != "" {
		kind := editType
		if text == " " {
			// A space ends the current undo run of typing.
			e.lastEdit = editNone
		}
		e.edit(kind)
		e.insertRaw(text)
		e.complete(false)
		return EditHandled
	}
	name := k.String()
	if fn, ok := editorKeys()[name]; ok {
		return fn(e)
	}
	if name == "ctrl+z" && e.UndoOnCtrlZ {
		e.undoStep()
		return EditHandled
	}
	return EditIgnored
}

// editorKeys maps key names to editor commands.
func editorKeys() map[string]func(e *Editor) EditAction {
	return editorKeysLazy.get(func() map[string]func(e *Editor) EditAction {
		return map[string]func(e *Editor) EditAction{
			"enter":           (*Editor).enter,
			"shift+enter":     (*Editor).newline,
			"alt+enter":       (*Editor).newline,
			"ctrl+j":          (*Editor).newline,
			"backspace":       func(e *Editor) EditAction { return e.deleteBack() },
			"shift+backspace": func(e *Editor) EditAction { return e.deleteBack() },
			"ctrl+h":          func(e *Editor) EditAction { return e.deleteBack() },
			"delete":          func(e *Editor) EditAction { return e.deleteForward() },
			"ctrl+d": func(e *Editor) EditAction {
				if e.text == "" {
					return EditIgnored
				}
				return e.deleteForward()
			},
			"left":           motion((*Editor).prevCluster),
			"ctrl+b":         motion((*Editor).prevCluster),
			"right":          motion((*Editor).nextCluster),
			"ctrl+f":         motion((*Editor).nextCluster),
			"alt+b":          motion((*Editor).prevWord),
			"ctrl+left":      motion((*Editor).prevWord),
			"alt+left":       motion((*Editor).prevWord),
			"alt+f":          motion((*Editor).nextWord),
			"ctrl+right":     motion((*Editor).nextWord),
			"alt+right":      motion((*Editor).nextWord),
			"home":           motion((*Editor).lineStart),
			"ctrl+a":         motion((*Editor).lineStart),
			"end":            motion((*Editor).lineEnd),
			"ctrl+e":         motion((*Editor).lineEnd),
			"ctrl+home":      motion(func(*Editor) int { return 0 }),
			"ctrl+end":       motion(func(e *Editor) int { return len(e.text) }),
			"up":             func(e *Editor) EditAction { return e.vertical(-1) },
			"ctrl+p":         func(e *Editor) EditAction { return e.vertical(-1) },
			"down":           func(e *Editor) EditAction { return e.vertical(1) },
			"ctrl+n":         func(e *Editor) EditAction { return e.vertical(1) },
			"ctrl+k":         (*Editor).killToEnd,
			"ctrl+u":         (*Editor).killToStart,
			"ctrl+w":         kill((*Editor).prevSpaceWord, true),
			"alt+backspace":  kill((*Editor).prevWord, true),
			"ctrl+backspace": kill((*Editor).prevWord, true),
			"alt+d":          kill((*Editor).nextWord, false),
			"ctrl+delete":    kill((*Editor).nextWord, false),
			"ctrl+y":         (*Editor).yank,
			"alt+y":          (*Editor).yankPop,
			"ctrl+_":         func(e *Editor) EditAction { e.undoStep(); return EditHandled },
			"ctrl+/":         func(e *Editor) EditAction { e.undoStep(); return EditHandled },
			"tab":            func(e *Editor) EditAction { return e.tab() },
		}
	})
}

var editorKeysLazy lazy[map[string]func(e *Editor) EditAction]

// motion makes a command that moves the cursor to where f says.
func motion(f func(*Editor) int) func(*Editor) EditAction {
	return func(e *Editor) EditAction {
		e.cur = f(e)
		e.goalCol = -1
		e.lastEdit = editNone
		e.yankFrom = -1
		e.complete(false)
		return EditHandled
	}
}

// kill makes a command that kills from the cursor to where f says,
// backward or forward.
func kill(f func(*Editor) int, backward bool) func(*Editor) EditAction {
	return func(e *Editor) EditAction {
		to := f(e)
		if to == e.cur {
			return EditHandled
		}
		a, b := e.cur, to
		if backward {
			a, b = to, e.cur
		}
		e.killRange(a, b, backward)
		return EditHandled
	}
}

// killRange deletes text[a:b] into the kill ring; consecutive kills
// collect into one entry.
func (e *Editor) killRange(a, b int, backward bool) {
	appendKill := e.chainKill && len(e.kills) > 0
	e.edit(editOther)
	gone := e.deleteRange(a, b)
	switch {
	case appendKill && backward:
		e.kills[len(e.kills)-1] = gone + e.kills[len(e.kills)-1]
	case appendKill:
		e.kills[len(e.kills)-1] += gone
	default:
		e.kills = append(e.kills, gone)
		if len(e.kills) > maxKills {
			e.kills = e.kills[1:]
		}
	}
	e.lastEdit = editNone
	e.killing = true
	e.complete(false)
}

func (e *Editor) killToEnd() EditAction {
	end := e.lineEnd()
	if end == e.cur && end < len(e.text) {
		end++ // at the end of a line: kill the newline
	}
	if end > e.cur {
		e.killRange(e.cur, end, false)
	}
	return EditHandled
}

func (e *Editor) killToStart() EditAction {
	start := e.lineStart()
	if start == e.cur && start > 0 {
		start--
	}
	if start < e.cur {
		e.killRange(start, e.cur, true)
	}
	return EditHandled
}

func (e *Editor) yank() EditAction {
	if len(e.kills) == 0 {
		return EditHandled
	}
	e.edit(editOther)
	start := e.cur
	e.insertRaw(e.kills[len(e.kills)-1])
	e.yankFrom, e.yankIdx = start, len(e.kills)-1
	e.lastEdit = editNone
	return EditHandled
}

// yankPop replaces the text just yanked with the previous kill.
func (e *Editor) yankPop() EditAction {
	if e.yankFrom < 0 || len(e.kills) < 2 {
		return EditHandled
	}
	start := e.yankFrom
	e.deleteRange(start, e.cur)
	idx := (e.yankIdx - 1 + len(e.kills)) % len(e.kills)
	e.insertRaw(e.kills[idx])
	e.yankFrom, e.yankIdx = start, idx
	return EditHandled
}

func (e *Editor) undoStep() {
	if len(e.undo) == 0 {
		return
	}
	st := e.undo[len(e.undo)-1]
	e.undo = e.undo[:len(e.undo)-1]
	e.text, e.cur = st.text, st.cur
	e.lastEdit = editNone
	e.yankFrom = -1
	e.goalCol = -1
	e.complete(false)
}

func (e *Editor) enter() EditAction {
	if e.cur > 0 && e.text[e.cur-1] == '\\' {
		// A backslash before Enter continues the text on a new line.
		e.edit(editOther)
		e.text = e.text[:e.cur-1] + "\n" + e.text[e.cur:]
		return EditHandled
	}
	return EditSubmit
}

func (e *Editor) newline() EditAction {
	e.edit(editOther)
	e.insertRaw("\n")
	e.menu = nil
	return EditHandled
}

func (e *Editor) deleteBack() EditAction {
	if e.cur == 0 {
		return EditHandled
	}
	a := e.prevCluster()
	if m, ok := e.markerBefore(); ok {
		a = e.cur - len(m)
	}
	e.edit(editDelete)
	e.deleteRange(a, e.cur)
	e.complete(false)
	return EditHandled
}

func (e *Editor) deleteForward() EditAction {
	if e.cur == len(e.text) {
		return EditHandled
	}
	b := e.nextCluster()
	if m, ok := e.markerAfter(); ok {
		b = e.cur + len(m)
	}
	e.edit(editDelete)
	e.deleteRange(e.cur, b)
	e.complete(false)
	return EditHandled
}

// markerBefore and markerAfter find a paste marker that ends or starts at
// the cursor, so that it is deleted and crossed as a whole.
func (e *Editor) markerBefore() (string, bool) {
	for m := range e.pastes {
		if strings.HasSuffix(e.text[:e.cur], m) {
			return m, true
		}
	}
	return "", false
}

func (e *Editor) markerAfter() (string, bool) {
	for m := range e.pastes {
		if strings.HasPrefix(e.text[e.cur:], m) {
			return m, true
		}
	}
	return "", false
}
