package agent

import (
	"encoding/json"

	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/provider"
)

// SessionStore adapts a session to the Store and Compactor interfaces.
type SessionStore struct {
	S *session.Session
}

var (
	_ Store     = SessionStore{}
	_ Compactor = SessionStore{}
)

// Messages implements Store.
func (s SessionStore) Messages() []provider.Message { return s.S.Messages() }

// AppendMessage implements Store.
func (s SessionStore) AppendMessage(m provider.Message, meta MessageMeta) error {
	return s.S.AppendMessage(m, session.Meta{Provider: meta.Provider, Model: meta.Model, Usage: meta.Usage, Stop: meta.Stop})
}

// AppendState implements Store.
func (s SessionStore) AppendState(extension string, state json.RawMessage) error {
	return s.S.AppendState(extension, state)
}

// Identity implements Store.
func (s SessionStore) Identity() SessionIdentity {
	id, parent, fork := s.S.Identity()
	return SessionIdentity{ID: id, ParentID: parent, Path: s.S.Path(), CWD: s.S.CWD(), ForkPoint: fork}
}

// States implements Store.
func (s SessionStore) States() map[string]json.RawMessage { return s.S.States() }

// PlanCompaction implements Compactor.
func (s SessionStore) PlanCompaction(keepTokens int) (CompactionPlan, bool) {
	p, ok := s.S.PlanCompaction(keepTokens)
	if !ok {
		return CompactionPlan{}, false
	}
	return CompactionPlan{Summarise: p.Summarise, FirstKeptID: p.FirstKeptID, TokensBefore: p.TokensBefore}, true
}

// ApplyCompaction implements Compactor.
func (s SessionStore) ApplyCompaction(p CompactionPlan, summary string) error {
	return s.S.ApplyCompaction(session.Plan{FirstKeptID: p.FirstKeptID, TokensBefore: p.TokensBefore}, summary)
}
