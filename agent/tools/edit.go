package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/zut-go/zut/provider"
)

// editMaxFile bounds the files edit works on.
const editMaxFile = 16 << 20

// editTool replaces exact pieces of text in a file.
//
// Every oldText must occur exactly once in the original file, and the
// matches must not overlap; the edits are then applied together, so their
// order does not matter. Matching sees the file as read shows it: a UTF-8
// byte order mark is set aside and CRLF line ends read as LF. On writing
// the mark is restored, text outside the matches is kept byte for byte,
// and the new text takes the file's dominant line end.
type editTool struct{ cfg Config }

func (t *editTool) Definition() provider.Tool {
	return provider.Tool{Name: "edit", Description: EditDescription, Schema: json.RawMessage(EditSchema)}
}

// What the model is told of the edit tool: constant data, so that offering
// the tool runs no code of this package (TestToolDefinitions).
const (
	EditDescription = "Edit a file by exact text replacement. Each edits[i].oldText must appear exactly once in the file as it is now (copy it from read output, including indentation; add surrounding lines to make it unique), and edits must not overlap. All edits apply together or none do. Line ends and a byte order mark are preserved. To create a file or replace all of it, use write."
	EditSchema      = `{"additionalProperties":false,"properties":{"edits":{"description":"Replacements, each matched against the original file.","items":{"additionalProperties":false,"properties":{"newText":{"description":"Text to put in its place.","type":"string"},"oldText":{"description":"Exact text to replace; must occur once in the file.","type":"string"}},"required":["oldText","newText"],"type":"object"},"minItems":1,"type":"array"},"path":{"description":"File to edit (relative to the working directory, absolute, or starting with ~/).","type":"string"}},"required":["path","edits"],"type":"object"}`
)

func (t *editTool) Preview(raw json.RawMessage) string {
	a, err := parseArgs("edit", raw, "path", "edits")
	if err != nil {
		return "edit (bad arguments)"
	}
	p, _ := a.str("path", false)
	var edits []json.RawMessage
	json.Unmarshal(a.fields["edits"], &edits)
	return fmt.Sprintf("edit %s (%s)", p, plural(len(edits), "edit"))
}

func (t *editTool) Mutates(json.RawMessage) bool { return true }

// replacement is one validated edit.
type replacement struct {
	index    int // position in the edits argument
	old, new string
	start    int // byte offset of the match in the normalised text
}

// Validate reports what Run would reject in the arguments (the file
// itself is checked by Plan).
func (t *editTool) Validate(raw json.RawMessage) error {
	p, _, err := parseEdit(raw)
	if err != nil {
		return err
	}
	return t.cfg.CheckScope("edit", t.cfg.resolve(p), true)
}

// parseEdit checks the arguments of an edit call.
func parseEdit(raw json.RawMessage) (path string, reps []replacement, err error) {
	var probe map[string]json.RawMessage
	if json.Unmarshal(raw, &probe) == nil {
		for _, k := range []string{"oldText", "newText", "old_string", "new_string"} {
			if _, ok := probe[k]; ok {
				return "", nil, badArg("edit", "unknown argument %q; put replacements in edits: [{\"oldText\": ..., \"newText\": ...}]", k)
			}
		}
	}
	a, err := parseArgs("edit", raw, "path", "edits")
	if err != nil {
		return "", nil, err
	}
	p, err := a.str("path", true)
	if err != nil {
		return "", nil, err
	}
	reps, err = parseEdits(a)
	if err != nil {
		return "", nil, err
	}
	if p == "" {
		return "", nil, badArg("edit", "path is empty; give the file to edit")
	}
	return p, reps, nil
}

func (t *editTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) Result {
	p, reps, err := parseEdit(raw)
	if err != nil {
		return errorResult("%v", err)
	}
	abs := t.cfg.resolve(p)
	if err := t.cfg.CheckScope("edit", abs, true); err != nil {
		return errorResult("%v", err)
	}
	shown := t.cfg.display(abs)
	fi, err := os.Stat(abs)
	if err != nil {
		r := t.cfg.statError("edit", abs, err)
		if os.IsNotExist(err) {
			r.Content[0].Text += " To create a file, use write."
		}
		return r
	}
	switch {
	case fi.IsDir():
		return errorResult("edit: %s is a directory; give a file path", shown)
	case !fi.Mode().IsRegular():
		return errorResult("edit: %s is not a regular file", shown)
	case fi.Size() > editMaxFile:
		return errorResult("edit: %s is %s, over the %s edit limit; change it with bash (for example sed) instead", shown, formatSize(fi.Size()), formatSize(editMaxFile))
	}
	data, err := t.cfg.readScoped("edit", abs, editMaxFile)
	if IsOpenedOutOfScope(err) {
		return errorResult("%v", err)
	}
	if err != nil {
		return t.cfg.statError("edit", abs, err)
	}
	if isBinary(data[:min(len(data), sniffLen)]) {
		return errorResult("edit: %s is a binary file (%s); edit changes text files only", shown, binaryKind(data))
	}
	if ctx.Err() != nil {
		return errorResult("edit: aborted before changing %s", shown)
	}
	doc := newDocument(data)
	if msg := doc.match(reps); msg != "" {
		return errorResult("edit: %s: %s", shown, msg)
	}
	out, newNorm, spans := doc.apply(reps)
	if _, _, err := t.cfg.writeAtomic("edit", abs, out); IsOpenedOutOfScope(err) {
		return errorResult("%v; the file was not changed", err)
	} else if err != nil {
		return errorResult("edit: %s: %v; the file was not changed", shown, err)
	}
	msg := fmt.Sprintf("edited %s: %s applied (%s)", shown, plural(len(reps), "edit"), spans)
	return textResult(msg).withDetails(newFileChange(shown, false, doc.norm, newNorm, false))
}

// parseEdits validates the edits argument.
func parseEdits(a *args) ([]replacement, error) {
	v := bytes.TrimSpace(a.fields["edits"])
	if len(v) == 0 || string(v) == "null" {
		return nil, badArg("edit", "edits is required: an array of {\"oldText\", \"newText\"} objects")
	}
	var items []json.RawMessage
	if v[0] != '[' || json.Unmarshal(v, &items) != nil {
		return nil, badArg("edit", "edits must be an array of {\"oldText\", \"newText\"} objects, got %s", jsonKind(v))
	}
	if len(items) == 0 {
		return nil, badArg("edit", "edits is empty; give at least one {\"oldText\", \"newText\"}")
	}
	reps := make([]replacement, len(items))
	for i, it := range items {
		name := fmt.Sprintf("edits[%d]", i)
		it = bytes.TrimSpace(it)
		if len(it) == 0 || it[0] != '{' {
			return nil, badArg("edit", "%s must be an object {\"oldText\", \"newText\"}, got %s", name, jsonKind(it))
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(it, &fields); err != nil {
			return nil, badArg("edit", "%s: %v", name, err)
		}
		for k := range fields {
			if k != "oldText" && k != "newText" {
				return nil, badArg("edit", "%s has unknown field %q (allowed: oldText, newText)", name, k)
			}
		}
		old, err := fieldString("edit", name+".oldText", fields["oldText"], true)
		if err != nil {
			return nil, err
		}
		nw, err := fieldString("edit", name+".newText", fields["newText"], true)
		if err != nil {
			return nil, err
		}
		reps[i] = replacement{index: i, old: toLF(old), new: toLF(nw)}
	}
	return reps, nil
}

// toLF turns CRLF line ends into LF.
func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// document is a file prepared for matching.
type document struct {
	bom   bool   // the file starts with a UTF-8 byte order mark
	orig  string // the file without the mark
	norm  string // orig with the CR of every CRLF removed
	crPos []int  // offsets in norm of the LFs whose CR was removed
	crlf  bool   // CRLF is the dominant line end
}

func newDocument(data []byte) *document {
	d := &document{}
	s := string(data)
	if strings.HasPrefix(s, "\uFEFF") {
		d.bom, s = true, s[len("\uFEFF"):]
	}
	d.orig = s
	if !strings.Contains(s, "\r\n") {
		d.norm = s
		return d
	}
	var b strings.Builder
	b.Grow(len(s))
	lf := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			d.crPos = append(d.crPos, b.Len())
			continue
		}
		if c == '\n' {
			lf++
		}
		b.WriteByte(c)
	}
	d.norm = b.String()
	d.crlf = len(d.crPos) > lf-len(d.crPos)
	return d
}

// origOffset maps an offset in norm to the offset in orig. An offset at a
// LF whose CR was removed maps to that CR, so the CR stays with the LF.
func (d *document) origOffset(i int) int {
	return i + sort.SearchInts(d.crPos, i)
}

// lineOf is the 1-based line of offset i in norm.
func (d *document) lineOf(i int) int { return strings.Count(d.norm[:i], "\n") + 1 }

// maxOccurrences bounds how many matches of one oldText are counted.
const maxOccurrences = 100

// match finds every replacement's unique match, setting start. It returns
// "" when all are good, else a message naming each failed edit.
func (d *document) match(reps []replacement) string {
	var fails []string
	failf := func(r replacement, format string, a ...any) {
		fails = append(fails, fmt.Sprintf("edits[%d]", r.index)+fmt.Sprintf(format, a...))
	}
	for i := range reps {
		r := &reps[i]
		if r.old == "" {
			failf(*r, ".oldText is empty; give the exact text to replace (to write a whole file, use write)")
			continue
		}
		if r.old == r.new {
			failf(*r, ": oldText and newText are the same, so it changes nothing; drop it or fix newText")
			continue
		}
		var at []int
		for off := 0; len(at) <= maxOccurrences; {
			j := strings.Index(d.norm[off:], r.old)
			if j < 0 {
				break
			}
			at = append(at, off+j)
			off += j + 1
		}
		switch len(at) {
		case 0:
			failf(*r, ".oldText was not found in the file%s", d.nearMiss(r.old))
			r.start = -1
		case 1:
			r.start = at[0]
		default:
			lines := make([]string, 0, 5)
			for k := 0; k < len(at) && k < 5; k++ {
				lines = append(lines, fmt.Sprint(d.lineOf(at[k])))
			}
			count := fmt.Sprint(len(at))
			if len(at) > maxOccurrences {
				count = fmt.Sprintf("over %d", maxOccurrences)
			}
			if len(at) > 5 {
				lines = append(lines, "...")
			}
			failf(*r, ".oldText was found %s times (at lines %s); it must match exactly once, so include more surrounding lines", count, strings.Join(lines, ", "))
			r.start = -1
		}
	}
	// Overlaps, among the edits that matched.
	var ok []*replacement
	for i := range reps {
		if reps[i].start >= 0 && reps[i].old != "" && reps[i].old != reps[i].new {
			ok = append(ok, &reps[i])
		}
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i].start < ok[j].start })
	for i := 1; i < len(ok); i++ {
		prev, cur := ok[i-1], ok[i]
		if cur.start < prev.start+len(prev.old) {
			a, b := min(prev.index, cur.index), max(prev.index, cur.index)
			fails = append(fails, fmt.Sprintf("edits[%d] overlaps edits[%d] (both change line %d); merge them into one edit", b, a, d.lineOf(cur.start)))
		}
	}
	switch len(fails) {
	case 0:
		return ""
	case 1:
		return fails[0] + ". The file was not changed."
	}
	sort.Strings(fails)
	return fmt.Sprintf("%d of %d edits failed, so the file was not changed:\n- %s", len(fails), len(reps), strings.Join(fails, "\n- "))
}

// apply performs validated replacements. It returns the bytes to write, the
// new normalised text (for Details), and the line spans of the new text in
// the result ("lines 3-5, 40").
func (d *document) apply(reps []replacement) (out []byte, newNorm string, spans string) {
	sorted := append([]replacement(nil), reps...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].start < sorted[j].start })
	var o, n strings.Builder
	if d.bom {
		o.WriteString("\uFEFF")
	}
	prevNorm := 0
	var parts []string
	line := 1
	for _, r := range sorted {
		o.WriteString(d.orig[d.origOffset(prevNorm):d.origOffset(r.start)])
		text := r.new
		if d.crlf {
			text = strings.ReplaceAll(text, "\n", "\r\n")
		}
		o.WriteString(text)
		gap := d.norm[prevNorm:r.start]
		line += strings.Count(gap, "\n")
		n.WriteString(gap)
		n.WriteString(r.new)
		end := line + strings.Count(strings.TrimSuffix(r.new, "\n"), "\n")
		if end > line {
			parts = append(parts, fmt.Sprintf("%d-%d", line, end))
		} else {
			parts = append(parts, fmt.Sprint(line))
		}
		line += strings.Count(r.new, "\n")
		prevNorm = r.start + len(r.old)
	}
	o.WriteString(d.orig[d.origOffset(prevNorm):])
	n.WriteString(d.norm[prevNorm:])
	word := "line "
	if len(parts) > 1 || strings.Contains(parts[0], "-") {
		word = "lines "
	}
	return []byte(o.String()), n.String(), word + strings.Join(parts, ", ")
}
