package bot

import (
	"context"
	"errors"
	"time"
)

// ChatID names a chat in the protocol's terms.
type ChatID string

// MessageID names a message the bot sent.
type MessageID string

// Transport is a chat protocol. It authenticates users itself: Poll hands
// on only updates from the user the bot belongs to. Methods other than Poll
// are safe for concurrent use.
type Transport interface {
	// Poll receives updates until ctx is done or it meets an error it
	// cannot recover from (a revoked token), which it returns. It calls
	// handle for one update at a time, after recording that the update was
	// received, so that a restart never hands it on again; handle must
	// return quickly.
	Poll(ctx context.Context, handle func(Update)) error
	// Home is the chat of the user the bot belongs to, when known.
	Home() (ChatID, bool)
	// Send sends m, split into as many messages as it needs.
	Send(ctx context.Context, chat ChatID, m Message) ([]MessageID, error)
	// Replace puts m in place of message id; the parts that do not fit
	// follow as new messages. Buttons of id not in m are removed.
	Replace(ctx context.Context, chat ChatID, id MessageID, m Message) ([]MessageID, error)
	// Preview shows plain progress text: it sends a new message when id is
	// "" and edits id otherwise, and returns the message. Text that does
	// not fit loses its head. Unlike Send it never retries: a RetryAfter
	// error says when to try again.
	Preview(ctx context.Context, chat ChatID, id MessageID, text string) (MessageID, error)
	// Typing shows that the bot is working for a few seconds.
	Typing(ctx context.Context, chat ChatID) error
	// AnswerCallback acknowledges a button press, showing text briefly.
	AnswerCallback(ctx context.Context, id, text string) error
	// SendFile sends a file or an image.
	SendFile(ctx context.Context, chat ChatID, f File) error
	// Download reads an attachment the user sent, at most max bytes.
	Download(ctx context.Context, a Attachment, max int64) ([]byte, error)
	// SetCommands publishes the command list in the chat's menu.
	SetCommands(ctx context.Context, cmds []Command) error
}

// Update is something the user did.
type Update struct {
	Chat        ChatID
	User        User
	Text        string // the message text or the caption of an attachment
	Attachments []Attachment
	// Callback is set when the user pressed a button.
	Callback *Callback
	// Unsupported names content the bot cannot read ("a sticker").
	Unsupported string
}

// User is the sender of an update.
type User struct {
	ID   string
	Name string
}

// Attachment is a file the user sent.
type Attachment struct {
	ID    string // the protocol's file id
	Name  string
	MIME  string
	Size  int64 // 0 when unknown
	Image bool  // sent as a photo
}

// Callback is a button press.
type Callback struct {
	ID      string
	Data    string
	Message MessageID
}

// Message is what the bot sends: Markdown (the model's markdown, which the
// transport formats) or, when Markdown is empty, Plain text as it is.
type Message struct {
	Markdown string
	Plain    string
	Buttons  [][]Button
}

// Button is an inline button; Data comes back in Callback.Data.
type Button struct {
	Text string
	Data string
}

// File is a file to send: Path is read when it is sent.
type File struct {
	Path    string
	Name    string
	Caption string
	Image   bool // show it as a photo
}

// RetryAfter reports how long the protocol asked to wait, when err says
// the bot sent too much (an error with a RetryAfter() time.Duration
// method in its chain).
func RetryAfter(err error) (time.Duration, bool) {
	var ra interface{ RetryAfter() time.Duration }
	if errors.As(err, &ra) && ra.RetryAfter() > 0 {
		return ra.RetryAfter(), true
	}
	return 0, false
}
