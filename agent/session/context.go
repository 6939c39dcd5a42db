package session

import (
	"encoding/json"
	"time"

	"github.com/zut-go/zut/provider"
)

// summaryIntro and summaryOutro frame a compaction summary in the context
// sent to the model.
const (
	summaryIntro = "The earlier part of this conversation was replaced by the summary below to save context.\n\n<summary>\n"
	summaryOutro = "\n</summary>"
)

// SummaryMessage is the user message that stands for a compaction summary
// in Messages.
func SummaryMessage(summary string) provider.Message {
	return provider.Message{Role: provider.RoleUser,
		Content: []provider.Block{provider.TextBlock(summaryIntro + summary + summaryOutro)}}
}

// Messages returns the conversation to send to the model for the current
// branch. When the branch holds a compaction, the latest one applies: its
// summary comes first as a user message, followed by the messages from its
// first kept entry on; when the first kept message is itself a user
// message, the summary is put in front of it as one message, so roles
// still alternate. The result shares content with the session: do not
// modify it.
func (s *Session) Messages() []provider.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return messagesOf(s.viewLocked())
}

// viewed is one message of the model's view with the entry it comes from
// ("" for a compaction summary).
type viewed struct {
	msg  provider.Message
	id   string
	time time.Time
}

// viewLocked is the model's view of the current branch, unmerged.
func (s *Session) viewLocked() []viewed {
	start, summary := 0, -1
	for k := len(s.path1) - 1; k >= 0; k-- {
		e := s.entries.at(s.path1[k])
		if e.Type != TypeCompaction {
			continue
		}
		summary = k
		start = k // the first kept entry is not on this branch: keep what follows
		for j := 0; j < k; j++ {
			if s.entries.at(s.path1[j]).ID == e.FirstKeptID {
				start = j
				break
			}
		}
		break
	}
	var view []viewed
	if summary >= 0 {
		view = make([]viewed, 0, len(s.path1)-start+1)
		c := s.entries.at(s.path1[summary])
		view = append(view, viewed{msg: SummaryMessage(c.Summary), time: c.Time})
	} else {
		view = make([]viewed, 0, len(s.path1))
	}
	s.decodeMessages(s.path1[start:])
	for _, i := range s.path1[start:] {
		e := s.entries.at(i)
		if e.Type == TypeMessage {
			view = append(view, viewed{msg: *s.message(i), id: e.ID, time: e.Time})
		}
	}
	return view
}

// messagesOf turns a view into messages, joining a leading summary with a
// following user message.
func messagesOf(view []viewed) []provider.Message {
	timed := timedOf(view)
	out := make([]provider.Message, len(timed))
	for i, t := range timed {
		out[i] = t.Message
	}
	return out
}

// TimedMessage is a message of the model's view with the time of the
// entry it comes from (a compaction summary: the compaction's).
type TimedMessage struct {
	Message provider.Message
	Time    time.Time
}

// TimedMessages is Messages with the time of each message.
func (s *Session) TimedMessages() []TimedMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return timedOf(s.viewLocked())
}

func timedOf(view []viewed) []TimedMessage {
	out := make([]TimedMessage, 0, len(view))
	for k, v := range view {
		if k == 1 && view[0].id == "" && v.msg.Role == provider.RoleUser {
			out[0] = TimedMessage{Message: provider.Message{Role: provider.RoleUser,
				Content: append(append([]provider.Block{}, out[0].Message.Content...), v.msg.Content...)}, Time: v.time}
			continue
		}
		out = append(out, TimedMessage{Message: v.msg, Time: v.time})
	}
	return out
}

// State returns the latest state of one extension on the current branch.
// ok is false when it has none or its latest state is null.
func (s *Session) State(extension string) (state json.RawMessage, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := len(s.path1) - 1; k >= 0; k-- {
		e := s.entries.at(s.path1[k])
		if e.Type == TypeExtState && e.Extension == extension {
			if isNull(e.State) {
				return nil, false
			}
			return e.State, true
		}
	}
	return nil, false
}

// States returns the latest state of every extension on the current
// branch; extensions whose latest state is null are absent. Entries of
// sibling branches are never visible; the part of the path a branch shares
// with the one it forked from is inherited.
func (s *Session) States() map[string]json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]json.RawMessage{}
	seen := map[string]bool{}
	for k := len(s.path1) - 1; k >= 0; k-- {
		e := s.entries.at(s.path1[k])
		if e.Type != TypeExtState || seen[e.Extension] {
			continue
		}
		seen[e.Extension] = true
		if !isNull(e.State) {
			out[e.Extension] = e.State
		}
	}
	return out
}
