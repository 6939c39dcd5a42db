package ext

import (
	"errors"
	"fmt"

	"github.com/zut-go/zut/proto"
)

// Levels of Notify and SetStatus.
const (
	LevelInfo    = proto.LevelInfo
	LevelSuccess = proto.LevelSuccess
	LevelWarn    = proto.LevelWarn
	LevelError   = proto.LevelError
)

// WidgetPosition is where the host shows a widget.
type WidgetPosition string

// WidgetPositionAboveInput is the widget placement of protocol v2: the
// persistent chrome above the editor.
const WidgetPositionAboveInput WidgetPosition = proto.WidgetAboveInput

// AlertKind names a structured alert.
type AlertKind string

// AlertKindBell asks the interactive terminal for one bell.
const AlertKindBell AlertKind = proto.AlertBell

// AlertRequest asks the host for an alert. Reason is metadata for the host
// (for example "question_ready"), never shown as terminal text.
type AlertRequest struct {
	Kind   AlertKind
	Reason string
}

// ErrClosed is returned by the methods that send frames once the
// connection to the host has ended.
var ErrClosed = errors.New("extension connection closed")

// The methods below send one-way frames. Called before the handshake has
// finished (before Run, or in OnHello) they are queued and sent right
// after ready; once the connection has ended they return ErrClosed. Any
// other error means the frame could not be written.

// Notify shows a one-shot note tagged with the extension's name. level is
// one of the Level constants.
func (e *Extension) Notify(level, message string) error {
	return e.send(proto.Notify{Level: level, Message: message})
}

// ClearNotes removes every note this extension showed with Notify or a
// Display response.
func (e *Extension) ClearNotes() error { return e.send(proto.ClearNotes{}) }

// Alert asks the host for a structured alert such as a terminal bell.
// Never write BEL or other terminal bytes yourself.
func (e *Extension) Alert(req AlertRequest) error {
	return e.send(proto.Alert{Kind: string(req.Kind), Reason: req.Reason})
}

// SetStatus sets or replaces the status item key; level is one of the
// Level constants. An empty text clears the item.
func (e *Extension) SetStatus(key, level, text string) error {
	return e.send(proto.Status{Key: key, Level: level, Text: text})
}

// ClearStatus removes the status item key.
func (e *Extension) ClearStatus(key string) error {
	return e.send(proto.Status{Key: key})
}

// SetWidget sets or replaces the compact widget id, shown at position
// with a title and lines. Use a panel for anything interactive.
func (e *Extension) SetWidget(id string, position WidgetPosition, title string, lines []string) error {
	return e.send(proto.Widget{ID: id, Position: string(position), Title: title, Lines: lines})
}

// ClearWidget removes the widget id.
func (e *Extension) ClearWidget(id string) error {
	return e.send(proto.WidgetClear{ID: id})
}

// Submit sends text as a user prompt in the interactive host: at once when
// the agent is idle, queued behind the running turn otherwise. Other hosts
// ignore it.
func (e *Extension) Submit(text string) error {
	return e.send(proto.Submit{Text: text})
}

// SubmitSlash runs text, "/name args", as if the user typed it (a
// compatibility frame, C17).
func (e *Extension) SubmitSlash(text string) error {
	return e.send(proto.SubmitSlash{Text: text})
}

// OpenPanel opens p without a command, for example from an interactive
// tool (a compatibility frame, C17). From a command, return
// OpenPanelResponse instead.
func (e *Extension) OpenPanel(p Panel) error {
	return e.send(proto.OpenPanel{Panel: p.proto()})
}

// RenderPanel redraws the open panel p.ID.
func (e *Extension) RenderPanel(p Panel) error {
	return e.send(proto.PanelRender{PanelID: p.ID, Title: p.Title, Lines: p.Lines, Footer: p.Footer})
}

// ClosePanel closes the panel panelID.
func (e *Extension) ClosePanel(panelID string) error {
	return e.send(proto.PanelClose{PanelID: panelID})
}

// send writes a one-way frame, or queues it until the connection is ready.
func (e *Extension) send(f proto.Frame) error {
	e.mu.Lock()
	c := e.c
	switch {
	case c == nil && e.ended:
		e.mu.Unlock()
		return ErrClosed
	case c == nil || !c.ready:
		if len(e.early) >= maxEarly {
			e.mu.Unlock()
			return fmt.Errorf("send %s: %d frames already wait for the connection to the host", f.Type(), maxEarly)
		}
		e.early = append(e.early, f)
		e.mu.Unlock()
		return nil
	}
	e.mu.Unlock()
	return c.write(f)
}

// writeLocked writes f on c while e.mu is held, logging a failure.
func (e *Extension) writeLocked(c *conn, f proto.Frame) {
	if err := c.write(f); err != nil && !errors.Is(err, ErrClosed) {
		e.Logf("%v", err)
	}
}
