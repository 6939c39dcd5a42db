// Package tui is zut's terminal user interface: cell widths, key decoding,
// the line editor, markdown rendering, themes, the inline screen renderer,
// and the view model of an interactive session (Chat: the transcript as it
// becomes final, notes, status items, widgets, panels, dialogs and pickers,
// laid out into frames). It knows nothing about agents or extensions; the
// main package feeds it what to show and owns the loop that draws it.
package tui
