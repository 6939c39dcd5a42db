package tui

import (
	"strconv"
	"strings"
)

// This file computes line diffs with Myers' O(ND) algorithm in its
// linear-space form (divide at the middle snake), with a cost limit that
// keeps pathological inputs fast at the price of a longer diff.

// DiffLine is one line of a diff. Kind is ' ' for context, '-' for a
// line only in the old text and '+' for a line only in the new text. Old
// and New are 1-based line numbers, 0 on the side the line is not on.
// NoEOL marks a last line without a final newline.
type DiffLine struct {
	Kind  byte
	Text  string
	Old   int
	New   int
	NoEOL bool
}

// Hunk is a run of changes with their context, as in a unified diff.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	Lines              []DiffLine
}

// maxDiffCost bounds the edit distance searched for in one split; beyond
// it the diff splits the ranges in half and may come out longer than the
// shortest.
const maxDiffCost = 2048

// Diff compares old and new line by line and returns hunks with context
// lines of unchanged text around each change (3 is usual; negative
// counts as 0). Equal texts give no hunks.
func Diff(old, new string, context int) []Hunk {
	context = max(context, 0)
	a, b := splitLines(old), splitLines(new)
	ids := make(map[string]int)
	intern := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	d := &differ{a: intern(a), b: intern(b)}
	d.delA = make([]bool, len(a))
	d.insB = make([]bool, len(b))
	d.compare(0, len(a), 0, len(b))

	// The whole file as diff lines.
	var all []DiffLine
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && d.delA[i]:
			all = append(all, DiffLine{Kind: '-', Text: a[i], Old: i + 1})
			i++
		case j < len(b) && d.insB[j]:
			all = append(all, DiffLine{Kind: '+', Text: b[j], New: j + 1})
			j++
		default:
			all = append(all, DiffLine{Kind: ' ', Text: a[i], Old: i + 1, New: j + 1})
			i++
			j++
		}
	}
	for k := range all {
		l := &all[k]
		if strings.HasSuffix(l.Text, "\n") {
			l.Text = l.Text[:len(l.Text)-1]
		} else {
			l.NoEOL = true
		}
	}
	return hunks(all, context)
}

// splitLines splits text after each newline; a last line without one is
// kept as is, so that a missing final newline is a difference.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// hunks groups the changed lines of all with their context.
func hunks(all []DiffLine, context int) []Hunk {
	var out []Hunk
	for k := 0; k < len(all); {
		if all[k].Kind == ' ' {
			k++
			continue
		}
		start := max(k-context, 0)
		end := k
		// Extend while the next change is within 2*context lines.
		for end < len(all) {
			if all[end].Kind != ' ' {
				end++
				continue
			}
			next := end
			for next < len(all) && all[next].Kind == ' ' {
				next++
			}
			if next < len(all) && next-end <= 2*context {
				end = next
				continue
			}
			end = min(end+context, len(all))
			break
		}
		h := Hunk{Lines: all[start:end]}
		oldBefore, newBefore := 0, 0
		if start > 0 {
			// Line numbers of the last line before the hunk.
			for p := start - 1; p >= 0; p-- {
				if all[p].Old > 0 && oldBefore == 0 {
					oldBefore = all[p].Old
				}
				if all[p].New > 0 && newBefore == 0 {
					newBefore = all[p].New
				}
				if oldBefore > 0 && newBefore > 0 {
					break
				}
			}
		}
		h.OldStart, h.NewStart = oldBefore, newBefore
		for _, l := range h.Lines {
			if l.Old > 0 {
				if h.OldLines == 0 {
					h.OldStart = l.Old
				}
				h.OldLines++
			}
			if l.New > 0 {
				if h.NewLines == 0 {
					h.NewStart = l.New
				}
				h.NewLines++
			}
		}
		out = append(out, h)
		k = end
	}
	return out
}

// UnifiedDiff returns the unified diff of old and new with 3 lines of
// context, headed "--- oldName" and "+++ newName", or "" when they are
// equal.
func UnifiedDiff(oldName, newName, old, new string) string {
	hs := Diff(old, new, 3)
	if len(hs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("--- " + oldName + "\n+++ " + newName + "\n")
	for _, h := range hs {
		b.WriteString("@@ -" + hunkRange(h.OldStart, h.OldLines) + " +" + hunkRange(h.NewStart, h.NewLines) + " @@\n")
		for _, l := range h.Lines {
			b.WriteByte(l.Kind)
			b.WriteString(l.Text)
			b.WriteByte('\n')
			if l.NoEOL {
				b.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}

func hunkRange(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}

// differ holds the two sequences and the result marks.
type differ struct {
	a, b       []int
	delA, insB []bool
	vf, vb     []int
}

// compare marks the differences between a[a0:a1] and b[b0:b1].
func (d *differ) compare(a0, a1, b0, b1 int) {
	for a0 < a1 && b0 < b1 && d.a[a0] == d.b[b0] {
		a0++
		b0++
	}
	for a0 < a1 && b0 < b1 && d.a[a1-1] == d.b[b1-1] {
		a1--
		b1--
	}
	switch {
	case a0 == a1:
		for j := b0; j < b1; j++ {
			d.insB[j] = true
		}
		return
	case b0 == b1:
		for i := a0; i < a1; i++ {
			d.delA[i] = true
		}
		return
	}
	x, y := d.split(a0, a1, b0, b1)
	d.compare(a0, x, b0, y)
	d.compare(x, a1, y, b1)
}

// split finds a point on a shortest edit path through the middle (the
// middle snake of Myers' paper). When the edit distance exceeds
// maxDiffCost it settles for the middle of both ranges.
func (d *differ) split(a0, a1, b0, b1 int) (int, int) {
	n, m := a1-a0, b1-b0
	delta := n - m
	odd := delta&1 != 0
	maxD := (n + m + 1) / 2
	off := maxD + 1
	size := 2*maxD + 3
	if cap(d.vf) < size {
		d.vf = make([]int, size)
		d.vb = make([]int, size)
	}
	vf, vb := d.vf[:size], d.vb[:size]
	clear(vf)
	clear(vb)
	for D := 0; D <= maxD; D++ {
		if D > maxDiffCost {
			break
		}
		for k := -D; k <= D; k += 2 {
			var x int
			if k == -D || k != D && vf[off+k-1] < vf[off+k+1] {
				x = vf[off+k+1]
			} else {
				x = vf[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && d.a[a0+x] == d.b[b0+y] {
				x++
				y++
			}
			vf[off+k] = x
			if kr := delta - k; odd && kr >= -(D-1) && kr <= D-1 && x+vb[off+kr] >= n {
				return a0 + x, b0 + y
			}
		}
		for k := -D; k <= D; k += 2 {
			var x int
			if k == -D || k != D && vb[off+k-1] < vb[off+k+1] {
				x = vb[off+k+1]
			} else {
				x = vb[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && d.a[a1-1-x] == d.b[b1-1-y] {
				x++
				y++
			}
			vb[off+k] = x
			if kf := delta - k; !odd && kf >= -D && kf <= D && vf[off+kf]+x >= n {
				return a1 - x, b1 - y
			}
		}
	}
	return a0 + n/2, b0 + m/2
}
