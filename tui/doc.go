// Package tui is zut's terminal user interface: cell widths, key decoding,
// the line editor, markdown rendering, themes and the inline screen
// renderer. It knows nothing about agents or extensions; the main package
// feeds it what to show.
package tui
