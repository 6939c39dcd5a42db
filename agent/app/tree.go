package app

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zut-go/zut/agent/permissions"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/provider"
)

// TreeRow is one line of a session tree as /tree and zut sessions --tree
// show it.
type TreeRow struct {
	// ID is the entry's id, what --fork and /tree take.
	ID string
	// Graph draws the branches before the label ("├─ ", "│  ").
	Graph string
	// Label is what the entry says in one line: the user's own words
	// ("› ..."), the answer's first line without markdown, the tools it
	// called, or what changed.
	Label string
	// Minor marks entries that are not messages of the user or the
	// model (a model change, a compaction).
	Minor bool
	Time  time.Time
	// OnBranch: on the current branch; Current: where it ends (the next
	// prompt continues after it).
	OnBranch, Current bool
	// Leaf: no entry follows it (choosing it switches to its branch;
	// choosing an inner entry forks there).
	Leaf bool
}

// TreeRows lays out the tree of s: one row per message, model change and
// compaction, branches drawn as a tree under the entry they fork from.
// Tool results, titles, branch markers and extension state are not rows
// (the title is the tree's name; a tool call's row says which tools ran).
func TreeRows(s *session.Session) []TreeRow {
	var rows []TreeRow
	var walk func(kids []*session.Node, prefix string)
	// visible returns the nodes shown for kids: hidden entries are
	// replaced by their own children.
	var visible func(kids []*session.Node) []*session.Node
	labels := map[string]TreeRow{}
	visible = func(kids []*session.Node) []*session.Node {
		var out []*session.Node
		for _, k := range kids {
			r, ok := treeLabel(s, k)
			if ok {
				labels[k.ID] = r
				out = append(out, k)
				continue
			}
			out = append(out, visible(k.Children)...)
		}
		return out
	}
	add := func(n *session.Node, graph string, next []*session.Node) {
		r := labels[n.ID]
		r.ID, r.Graph, r.Time, r.OnBranch, r.Leaf = n.ID, graph, n.Time, n.OnBranch, len(next) == 0
		// The current row is the last one shown on the current branch.
		r.Current = n.OnBranch
		for _, c := range next {
			r.Current = r.Current && !c.OnBranch
		}
		rows = append(rows, r)
	}
	walk = func(kids []*session.Node, prefix string) {
		shown := visible(kids)
		if len(shown) == 1 {
			n := shown[0]
			add(n, prefix, visible(n.Children))
			walk(n.Children, prefix)
			return
		}
		for i, n := range shown {
			branch, more := "├─ ", "│  "
			if i == len(shown)-1 {
				branch, more = "└─ ", "   "
			}
			add(n, prefix+branch, visible(n.Children))
			walk(n.Children, prefix+more)
		}
	}
	walk(s.Tree().Children, "")
	return rows
}

// treeLabel is the row of n, and false for entries that are not rows.
func treeLabel(s *session.Session, n *session.Node) (TreeRow, bool) {
	switch n.Type {
	case session.TypeModelChange:
		return TreeRow{Label: n.Preview, Minor: true}, true
	case session.TypeCompaction:
		return TreeRow{Label: "compacted", Minor: true}, true
	case session.TypeMessage:
	default:
		return TreeRow{}, false
	}
	e, ok := s.Entry(n.ID)
	if !ok || e.Message == nil {
		return TreeRow{}, false
	}
	m := e.Message
	if m.Role == provider.RoleUser {
		text := strings.TrimSpace(m.UserText())
		if text == "" {
			return TreeRow{}, false // tool results, or context alone
		}
		return TreeRow{Label: "› " + firstLineClip(text)}, true
	}
	var text string
	for _, b := range m.Content {
		if b.Type == provider.BlockText && strings.TrimSpace(b.Text) != "" {
			text = plainLine(b.Text)
			break
		}
	}
	var calls []string
	for _, u := range m.ToolUses() {
		_, subj := permissions.Subject(permissions.Call{Tool: u.Name, Args: u.Input, CWD: s.CWD()})
		c := u.Name
		if subj != "" && subj != "." {
			c += " " + subj
		}
		calls = append(calls, c)
	}
	label := text
	if len(calls) > 0 {
		if label != "" {
			label += " "
		}
		label += "→ " + strings.Join(calls, ", ")
	}
	if label == "" {
		return TreeRow{}, false
	}
	return TreeRow{Label: firstLineClip(label)}, true
}

// plainLine is the first non-empty line of markdown text without its
// markup: heading and quote marks, list bullets, emphasis and code ticks.
func plainLine(md string) string {
	for _, l := range strings.Split(md, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "```") {
			continue
		}
		l = strings.TrimLeft(l, "#> ")
		for _, b := range []string{"- ", "* ", "+ "} {
			l = strings.TrimPrefix(l, b)
		}
		l = strings.NewReplacer("**", "", "__", "", "`", "").Replace(l)
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

// firstLineClip is the first line of s, at most 70 characters.
func firstLineClip(s string) string {
	s, _, more := strings.Cut(strings.TrimSpace(s), "\n")
	s = strings.TrimSpace(s)
	if more {
		s += " …"
	}
	if utf8.RuneCountInString(s) > 70 {
		s = string([]rune(s)[:69]) + "…"
	}
	return s
}
