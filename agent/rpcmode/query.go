package rpcmode

import (
	"context"
	"encoding/json"
	"time"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/host"
	"github.com/zut-go/zut/proto"
	"github.com/zut-go/zut/provider"
)

// The data of the commands that only read.

// state is get_state's data.
func (s *rpcServer) state() proto.RPCState {
	a := s.app
	m := a.Agent().Model()
	u := a.Agent().Usage()
	running, queued := s.jobs.state()
	id := a.SessionIdentity()
	st := proto.RPCState{
		Provider:     m.Provider,
		Model:        m.ID,
		Reasoning:    reasoningText(a.Agent().Reasoning()),
		CWD:          a.CWD(),
		MessageCount: len(a.Agent().Store().Messages()),
		Busy:         running != "" || queued > 0,
		Usage: proto.RPCUsage{Input: u.Input, Output: u.Output, Reasoning: reasoningTokens(u),
			CacheRead: u.CacheRead, CacheWrite: u.CacheWrite, CostUSD: u.CostUSD},
		SessionID:   a.Session().ID(),
		SessionFile: a.Session().Path(),
		BranchID:    id.ID,
		LeafID:      a.Session().Leaf(),
		Title:       a.Session().Title(),
		Running:     running,
		Queued:      queued,
	}
	if g, ok := a.Goal(); ok {
		st.Goal, _ = json.Marshal(g)
	}
	if a.Host() != nil {
		if ext, panel := a.Host().Panel(); panel != "" {
			st.Panel = &proto.RPCPanelRef{Extension: ext, PanelID: panel}
		}
	}
	if a.ModelError() != nil && a.Resolved() == nil {
		st.ModelError = a.ModelError().Error()
	}
	return st
}

// sessionData describes the session after new_session and
// switch_session.
func (s *rpcServer) sessionData() map[string]any {
	a := s.app
	return map[string]any{
		"session_id":    a.Session().ID(),
		"session_file":  a.Session().Path(),
		"branch_id":     a.SessionIdentity().ID,
		"message_count": len(a.Agent().Store().Messages()),
	}
}

// branchData describes the branch after fork and switch_branch.
func (s *rpcServer) branchData() map[string]any {
	a := s.app
	id := a.SessionIdentity()
	return map[string]any{
		"session_id":    a.Session().ID(),
		"branch_id":     id.ID,
		"parent_id":     id.ParentID,
		"fork_point":    id.ForkPoint,
		"leaf_id":       a.Session().Leaf(),
		"message_count": len(a.Agent().Store().Messages()),
	}
}

// tree is get_tree's data: every entry of the session in the order they
// were written, parents before children, as a flat list (a long
// conversation is a deep tree, which JSON parsers handle badly).
func (s *rpcServer) tree() map[string]any {
	a := s.app
	root := a.Session().Tree()
	entries := []proto.RPCTreeEntry{}
	type item struct {
		n      *session.Node
		parent string
	}
	stack := []item{}
	for i := len(root.Children) - 1; i >= 0; i-- {
		stack = append(stack, item{root.Children[i], ""})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := it.n
		entries = append(entries, proto.RPCTreeEntry{ID: n.ID, ParentID: it.parent, Type: string(n.Type),
			Preview: n.Preview, Time: n.Time, OnBranch: n.OnBranch, Current: n.Current})
		for i := len(n.Children) - 1; i >= 0; i-- {
			stack = append(stack, item{n.Children[i], n.ID})
		}
	}
	return map[string]any{
		"session_id": root.ID,
		"title":      root.Preview,
		"branch_id":  a.SessionIdentity().ID,
		"leaf_id":    a.Session().Leaf(),
		"entries":    entries,
	}
}

// sessions is get_sessions' data: the saved sessions of the working
// directory, newest first.
func (s *rpcServer) sessions() (map[string]any, error) {
	a := s.app
	list, err := session.List(a.SessionsDir(), a.CWD(), false)
	if err != nil {
		return nil, err
	}
	out := []proto.RPCSessionInfo{}
	for _, in := range list {
		out = append(out, proto.RPCSessionInfo{ID: in.ID, Title: in.Title, CWD: in.CWD, Created: in.Created,
			Modified: in.Modified, Messages: in.Messages, Preview: in.Preview, Path: in.Path, Current: in.ID == a.Session().ID()})
	}
	return map[string]any{"sessions": out}, nil
}

// extensions is get_extensions' data: what zut ext doctor reports.
func (s *rpcServer) extensions() map[string]any {
	a := s.app
	if a.Host() == nil {
		return map[string]any{"enabled": false, "extensions": []host.Report{}}
	}
	return map[string]any{"enabled": true, "extensions": a.Host().Diagnostics()}
}

// cmdGetModels lists the models of every provider (local servers are
// asked, within a few seconds). It runs as a task.
func (s *rpcServer) cmdGetModels(ctx context.Context, c *proto.RPCGetModels) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	o := s.app.ProviderOptions()
	o.Provider = ""
	rows, err := provider.Listings(ctx, o)
	if err != nil {
		s.fail(c, err)
		return
	}
	cur := s.app.Agent().Model()
	out := []proto.RPCModelInfo{}
	for _, r := range rows {
		out = append(out, proto.RPCModelInfo{ID: r.ID, Provider: r.Provider, ContextWindow: r.ContextWindow, MaxOutput: r.MaxOutput,
			Reasoning: r.Reasoning != "", ReasoningStyle: r.Reasoning, Images: r.Images, Ready: r.Ready, Default: r.Default,
			Current: r.Provider == cur.Provider && r.ID == cur.ID})
	}
	s.ok(c, map[string]any{"models": out})
}

// reasoningTokens is u's reasoning count, nil when no server counted it.
func reasoningTokens(u provider.Usage) *int {
	if !u.ReasoningKnown {
		return nil
	}
	n := u.Reasoning
	return &n
}

// messages is get_messages' list: the current branch as the model sees
// it, each message with its time, tool results with role "tool".
func (s *rpcServer) messages() []agent.MessageJSON {
	if st, ok := s.app.Agent().Store().(agent.SessionStore); ok && st.S != nil {
		return agent.TimedMessages(st.S.TimedMessages())
	}
	return agent.Messages(s.app.Agent().Store().Messages())
}
