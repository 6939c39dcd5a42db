// Package markdown renders the markdown of model answers for the terminal
// as it streams: Stream takes text in pieces and keeps lines that are
// final apart from the unfinished end (Stable), Render renders a whole
// text. It knows CommonMark's blocks and inlines plus tables, task lists,
// strikethrough and autolinks, and colours code blocks with package
// highlight.
package markdown
