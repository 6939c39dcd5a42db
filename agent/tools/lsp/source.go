package lsp

import (
	"encoding/json"
	"strings"
)

// sources reads the files results point into, once per call, so results
// can be shown with 1-based character columns and their source lines.
type sources struct {
	s     *server
	files map[string]*text // nil when unreadable
}

func newSources(s *server) *sources { return &sources{s: s, files: map[string]*text{}} }

// text returns the text of the file at abs: the open document, else the
// file read from disk; nil when it cannot be read.
func (src *sources) text(abs string) *text {
	if t, ok := src.files[abs]; ok {
		return t
	}
	t := src.s.openText(abs)
	if t == nil {
		if data, err := readBounded(abs, maxDocument); err == nil {
			t = newText(string(data))
		}
	}
	src.files[abs] = t
	return t
}

// placeSpan converts an LSP range in t into 1-based lines and character
// columns. Without the text, the server's numbers are shown plus one.
func placeSpan(t *text, enc encoding, r span) (line, col, endLine, endCol int) {
	if t == nil {
		return r.Start.Line + 1, r.Start.Character + 1, r.End.Line + 1, r.End.Character + 1
	}
	line, col = t.point(t.offset(r.Start, enc))
	endLine, endCol = t.point(t.offset(r.End, enc))
	return line, col, endLine, endCol
}

// locationOf converts a server location into a Location with its source
// line.
func (src *sources) locationOf(uri string, r span, display func(string) string) (Location, bool) {
	abs, err := uriPath(uri)
	if err != nil {
		return Location{}, false
	}
	t := src.text(abs)
	loc := Location{Path: display(abs)}
	loc.Line, loc.Column, loc.EndLine, loc.EndColumn = placeSpan(t, src.s.enc, r)
	if t != nil {
		loc.Text = strings.TrimSpace(t.line(loc.Line - 1))
	}
	return loc, true
}

// parseLocations reads the answer to definition or references: a
// Location, a list of them, a list of LocationLinks, or null.
func parseLocations(raw json.RawMessage) []location {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil
	}
	if s[0] == '{' {
		var l location
		if json.Unmarshal(raw, &l) == nil && l.URI != "" {
			return []location{l}
		}
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []location
	for _, it := range items {
		var probe struct {
			URI       string `json:"uri"`
			TargetURI string `json:"targetUri"`
		}
		if json.Unmarshal(it, &probe) != nil {
			continue
		}
		if probe.TargetURI != "" {
			var ll locationLink
			if json.Unmarshal(it, &ll) == nil {
				out = append(out, location{URI: ll.TargetURI, Range: ll.TargetSelectionRange})
			}
			continue
		}
		var l location
		if json.Unmarshal(it, &l) == nil && l.URI != "" {
			out = append(out, l)
		}
	}
	return out
}

// hoverText reads the contents of a Hover: MarkupContent, a MarkedString
// (a string or {language, value}), or a list of MarkedStrings.
func hoverText(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return ""
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return strings.TrimSpace(str)
	}
	if s[0] == '[' {
		var items []json.RawMessage
		json.Unmarshal(raw, &items)
		var parts []string
		for _, it := range items {
			if t := hoverText(it); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n\n")
	}
	var obj struct {
		Kind     string `json:"kind"`
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	if obj.Language != "" {
		return "```" + obj.Language + "\n" + strings.TrimSpace(obj.Value) + "\n```"
	}
	return strings.TrimSpace(obj.Value)
}
