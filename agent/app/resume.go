package app

import (
	"fmt"
	"strings"

	"github.com/zut-go/zut/agent/session"
)

// findSession resolves a session id or a unique prefix of one, in any
// directory: "no session starts with f6", or "f6 matches 3 sessions: ...".
func (a *App) findSession(prefix string) (session.Info, error) {
	return FindSession(a.SessionsDir(), prefix)
}

// FindSession finds the saved session under dir (normally
// $ZUT_HOME/sessions) whose id is id or starts with it.
func FindSession(dir, id string) (session.Info, error) {
	infos, err := session.List(dir, "", true)
	if err != nil {
		return session.Info{}, fmt.Errorf("find session %s: %w", id, err)
	}
	var hits []session.Info
	for _, in := range infos {
		if in.ID == id {
			return in, nil
		}
		if strings.HasPrefix(in.ID, id) {
			hits = append(hits, in)
		}
	}
	switch len(hits) {
	case 0:
		return session.Info{}, fmt.Errorf("no session starts with %s; zut sessions lists this directory's sessions (zut sessions --all, every directory's)", id)
	case 1:
		return hits[0], nil
	}
	var list []string
	for _, h := range hits[:min(len(hits), 5)] {
		label := h.Title
		if label == "" {
			label = h.Preview
		}
		list = append(list, fmt.Sprintf("%s (%s)", shortID(h.ID), oneLineClip(label, 30)))
	}
	more := ""
	if len(hits) > 5 {
		more = ", ..."
	}
	return session.Info{}, fmt.Errorf("%s matches %d sessions: %s%s; give more of the id", id, len(hits), strings.Join(list, ", "), more)
}
