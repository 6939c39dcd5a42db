package agent

import (
	"encoding/json"

	"github.com/zut-go/zut/provider"
)

// Store is the conversation as the agent needs it: the messages to send
// and places to record what happened. Package session provides the
// on-disk implementation; main adapts it.
type Store interface {
	// Messages returns the conversation to send on the current branch, with
	// compaction applied.
	Messages() []provider.Message
	// AppendMessage records a message on the current branch.
	AppendMessage(m provider.Message, meta MessageMeta) error
	// AppendState records an extension's opaque state on the current
	// branch (C19); a JSON null clears it.
	AppendState(extension string, state json.RawMessage) error
	// Identity is the current branch identity for the extension protocol.
	Identity() SessionIdentity
	// States returns each extension's latest state on the current branch.
	States() map[string]json.RawMessage
}

// MessageMeta is what is recorded beside a message.
type MessageMeta struct {
	Provider string
	Model    string
	Usage    *provider.Usage
	Stop     provider.StopReason
}
