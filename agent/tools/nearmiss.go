package tools

import (
	"fmt"
	"strings"
)

// Bounds of the near-miss search of edit: it only runs where it is cheap.
const (
	nearMaxLines   = 20000 // lines of the file
	nearMaxLineLen = 200   // bytes of the line compared by edit distance
)

// nearMiss explains why oldText did not match, when a cheap look finds
// why: whitespace at its edges, a first line found with the difference
// further down, a first line that differs only in spacing, or the closest
// line by edit distance. It returns "" or text starting with "; ".
func (d *document) nearMiss(old string) string {
	if t := strings.TrimSpace(old); t != old && t != "" && strings.Contains(d.norm, t) {
		return "; it does match once leading and trailing whitespace (blank lines, spaces, newlines) is removed, so fix those edges"
	}
	olines := strings.Split(old, "\n")
	f := 0
	for f < len(olines) && strings.TrimSpace(olines[f]) == "" {
		f++
	}
	if f == len(olines) {
		return ""
	}
	lines := strings.Split(d.norm, "\n")
	if len(lines) > nearMaxLines {
		return ""
	}
	want := strings.TrimSpace(olines[f])

	// The first line occurs (exactly): find where the rest diverges.
	bestAt, bestLen := -1, 0
	for i, l := range lines {
		if l != olines[f] {
			continue
		}
		k := 1
		for f+k < len(olines) && i+k < len(lines) && lines[i+k] == olines[f+k] {
			k++
		}
		if k > bestLen {
			bestAt, bestLen = i, k
		}
	}
	if bestAt >= 0 {
		if f+bestLen >= len(olines) {
			// Every line of oldText matched but the whole did not: the
			// text ends past the end of the file.
			return fmt.Sprintf("; its lines match from line %d to the end of the file, but oldText goes on past it", bestAt+1)
		}
		fileLine := "(end of file)"
		if bestAt+bestLen < len(lines) {
			fileLine = quoteLine(lines[bestAt+bestLen])
		}
		return fmt.Sprintf("; its first %s match at line %d, but then the file has %s where oldText has %s",
			plural(bestLen, "line"), bestAt+1, fileLine, quoteLine(olines[f+bestLen]))
	}

	// The first line occurs with other spacing.
	for i, l := range lines {
		if strings.TrimSpace(l) == want || collapse(l) == collapse(want) {
			return fmt.Sprintf("; line %d matches its first line except for whitespace: the file has %s, oldText has %s (copy the file's indentation exactly)",
				i+1, quoteLine(l), quoteLine(olines[f]))
		}
	}

	// The closest line by edit distance.
	if len(want) < 4 || len(want) > nearMaxLineLen {
		return ""
	}
	limit := len(want) / 3
	best, bestD := -1, limit+1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if len(t) > nearMaxLineLen {
			continue
		}
		if dist := editDistance(want, t, limit); dist < bestD {
			best, bestD = i, dist
		}
	}
	if best >= 0 {
		return fmt.Sprintf("; the closest line to its first line is line %d: %s", best+1, quoteLine(lines[best]))
	}
	return ""
}

// collapse reduces every run of whitespace in s to one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// quoteLine shows one line of text in a message, clipped.
func quoteLine(s string) string { return fmt.Sprintf("%q", clip(s, 100)) }
