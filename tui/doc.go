// Package tui is zut's terminal renderer: the terminal itself (raw mode,
// capability probes, key decoding), the inline screen that commits final
// lines to scrollback and redraws only the live lines below them, the line
// editor with history and completion, and the view model of an
// interactive session (Chat: the transcript as it becomes final, tool
// views and diffs, notes, status items, widgets, panels, dialogs and
// pickers, laid out into frames).
//
// Styled text, themes and widths are package tui/ansi; markdown is
// tui/markdown (with syntax colours from tui/highlight). tui knows nothing
// about agents or extensions: the interactive mode (tui/interactive) feeds
// it what to show and owns the loop that draws it.
package tui
