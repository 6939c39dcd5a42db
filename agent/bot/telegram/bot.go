package telegram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/zut-go/zut/agent/bot"
)

// Config configures a Bot. Client and Store are required.
type Config struct {
	Client *Client
	Store  Store
	Log    bot.Logger
	// ParseMode is "HTML" (the default) or "MarkdownV2".
	ParseMode string
	// PollTimeout is the long-polling timeout of getUpdates (default 50 s).
	PollTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait after a failed poll
	// (defaults 1 s and 60 s); a 429 waits for its retry_after.
	MinBackoff, MaxBackoff time.Duration
	// OnPaired is called (from Poll) once a user has paired, after the
	// pairing is saved, so that zut telegram run's status.json says so.
	OnPaired func(Pairing)
	// Now is the clock of the rate limits of unpaired chats; nil is
	// time.Now.
	Now func() time.Time
}

// Bounds on what strangers can make an unpaired bot do: at most one
// reply per chat per refuseEvery, and at most pairAttempts wrong pairing
// codes per user in pairWindow (the code itself is then not even
// checked, and the user is logged once per window). The maps behind them
// hold at most maxStrangers entries.
const (
	refuseEvery  = time.Minute
	pairAttempts = 5
	pairWindow   = 10 * time.Minute
	maxStrangers = 10000
)

// attempts counts one user's pairing attempts in the current window.
type attempts struct {
	start  time.Time
	n      int
	logged bool // the limit was logged in this window
}

// Bot is the Telegram transport of package bot: long polling with a
// persisted offset, pairing, formatting, splitting, files. Safe for
// concurrent use; Poll runs once at a time.
type Bot struct {
	cfg Config
	c   *Client

	mu      sync.Mutex
	pairing Pairing
	offset  int64
	replied map[int64]time.Time // chat → last refusal sent there
	tries   map[int64]*attempts // user → pairing attempts
}

// New loads the bot's pairing and offset from its store.
func New(cfg Config) (*Bot, error) {
	if cfg.Log == nil {
		cfg.Log = log.New(io.Discard, "", 0)
	}
	if cfg.ParseMode == "" {
		cfg.ParseMode = "HTML"
	}
	if cfg.ParseMode != "HTML" && cfg.ParseMode != "MarkdownV2" {
		return nil, fmt.Errorf("telegram: parse mode %q: use HTML or MarkdownV2", cfg.ParseMode)
	}
	if cfg.PollTimeout <= 0 {
		cfg.PollTimeout = 50 * time.Second
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = time.Second
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(60*time.Second, cfg.MinBackoff)
	}
	p, err := cfg.Store.Pairing()
	if err != nil {
		return nil, err
	}
	off, err := cfg.Store.Offset()
	if err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Bot{cfg: cfg, c: cfg.Client, pairing: p, offset: off,
		replied: map[int64]time.Time{}, tries: map[int64]*attempts{}}, nil
}

// Me calls getMe: it checks the token and names the bot.
func (b *Bot) Me(ctx context.Context) (User, error) { return b.c.Me(ctx) }

// Home is the paired user's private chat.
func (b *Bot) Home() (bot.ChatID, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.pairing.Paired() {
		return "", false
	}
	return chatID(b.pairing.UserID), true
}

func chatID(id int64) bot.ChatID { return bot.ChatID(strconv.FormatInt(id, 10)) }

func parseChat(c bot.ChatID) (int64, error) {
	n, err := strconv.ParseInt(string(c), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("telegram: chat %q is not a chat id", c)
	}
	return n, nil
}

func parseMessage(m bot.MessageID) int64 {
	n, _ := strconv.ParseInt(string(m), 10, 64)
	return n
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// callRetry calls method and retries what is worth retrying: a 429 after
// its retry_after, a 5xx and a dropped connection after a short backoff.
func (b *Bot) callRetry(ctx context.Context, method string, params, result any) error {
	for attempt := 0; ; attempt++ {
		err := b.c.Call(ctx, method, params, result)
		if err == nil {
			return nil
		}
		wait, ok := b.retryable(err, attempt)
		if !ok || ctx.Err() != nil {
			return err
		}
		b.cfg.Log.Printf("%v; retrying in %s", err, wait)
		if err := sleep(ctx, wait); err != nil {
			return err
		}
	}
}

func (b *Bot) retryable(err error, attempt int) (time.Duration, bool) {
	var api *APIError
	var nerr *NetworkError
	switch {
	case errors.As(err, &api) && api.Code == 429:
		return max(api.Wait, time.Second), attempt < 5
	case errors.As(err, &api) && api.Code >= 500:
		return b.cfg.MinBackoff << attempt, attempt < 3
	case errors.As(err, &nerr):
		return b.cfg.MinBackoff << attempt, attempt < 2
	}
	return 0, false
}

type linkPreview struct {
	IsDisabled bool `json:"is_disabled"`
}

type inlineButton struct {
	Text string `json:"text"`
	Data string `json:"callback_data"`
}

type keyboard struct {
	InlineKeyboard [][]inlineButton `json:"inline_keyboard"`
}

type textParams struct {
	ChatID      int64        `json:"chat_id"`
	MessageID   int64        `json:"message_id,omitempty"`
	Text        string       `json:"text"`
	ParseMode   string       `json:"parse_mode,omitempty"`
	LinkPreview *linkPreview `json:"link_preview_options,omitempty"`
	ReplyMarkup *keyboard    `json:"reply_markup,omitempty"`
}

func markup(rows [][]bot.Button) *keyboard {
	if len(rows) == 0 {
		return nil
	}
	k := &keyboard{}
	for _, r := range rows {
		var row []inlineButton
		for _, btn := range r {
			row = append(row, inlineButton{Text: btn.Text, Data: btn.Data})
		}
		k.InlineKeyboard = append(k.InlineKeyboard, row)
	}
	return k
}

// parts formats and splits m.
func (b *Bot) parts(m bot.Message) []Formatted {
	f := Plain(m.Plain)
	if m.Markdown != "" {
		f = Markdown(m.Markdown)
	}
	return Split(f, MaxMessage)
}

func (b *Bot) render(f Formatted) string {
	if b.cfg.ParseMode == "MarkdownV2" {
		return f.MarkdownV2()
	}
	return f.HTML()
}

// sendPart sends (or, with id, edits into) one formatted part. Markup
// Telegram cannot parse is sent again as plain text.
func (b *Bot) sendPart(ctx context.Context, chat, id int64, f Formatted, kb *keyboard) (int64, error) {
	p := textParams{ChatID: chat, MessageID: id, Text: f.Text, LinkPreview: &linkPreview{IsDisabled: true}, ReplyMarkup: kb}
	if len(f.Entities) > 0 {
		p.Text, p.ParseMode = b.render(f), b.cfg.ParseMode
	}
	method := "sendMessage"
	if id != 0 {
		method = "editMessageText"
	}
	var res Message
	err := b.callRetry(ctx, method, p, &res)
	var api *APIError
	if errors.As(err, &api) && api.CantParse() && p.ParseMode != "" {
		b.cfg.Log.Printf("telegram %s: Telegram could not parse the formatting (%s); sending the text without it", method, api.Description)
		p.Text, p.ParseMode = f.Text, ""
		err = b.callRetry(ctx, method, p, &res)
	}
	if errors.As(err, &api) && api.NotModified() {
		return id, nil
	}
	if err != nil {
		return 0, err
	}
	if id != 0 {
		return id, nil
	}
	return res.ID, nil
}

// Send sends m, split into messages that fit; buttons go under the last.
func (b *Bot) Send(ctx context.Context, chat bot.ChatID, m bot.Message) ([]bot.MessageID, error) {
	return b.sendFrom(ctx, chat, 0, m)
}

// Replace edits id into the first part of m and sends the rest.
func (b *Bot) Replace(ctx context.Context, chat bot.ChatID, id bot.MessageID, m bot.Message) ([]bot.MessageID, error) {
	return b.sendFrom(ctx, chat, parseMessage(id), m)
}

func (b *Bot) sendFrom(ctx context.Context, chat bot.ChatID, edit int64, m bot.Message) ([]bot.MessageID, error) {
	cid, err := parseChat(chat)
	if err != nil {
		return nil, err
	}
	parts := b.parts(m)
	if len(parts) == 0 {
		parts = []Formatted{Plain("…")}
	}
	var ids []bot.MessageID
	for i, part := range parts {
		var kb *keyboard
		if i == len(parts)-1 {
			kb = markup(m.Buttons)
		}
		id := int64(0)
		if i == 0 {
			id = edit
		}
		got, err := b.sendPart(ctx, cid, id, part, kb)
		var api *APIError
		if id != 0 && errors.As(err, &api) && api.Code == 400 {
			// The message is gone (the user deleted it): send anew.
			got, err = b.sendPart(ctx, cid, 0, part, kb)
		}
		if err != nil {
			return ids, err
		}
		ids = append(ids, bot.MessageID(strconv.FormatInt(got, 10)))
	}
	return ids, nil
}

// Preview sends or edits plain progress text, keeping its tail when it is
// too long. It does not retry.
func (b *Bot) Preview(ctx context.Context, chat bot.ChatID, id bot.MessageID, text string) (bot.MessageID, error) {
	cid, err := parseChat(chat)
	if err != nil {
		return "", err
	}
	text = tailFitting(text, MaxMessage-8)
	if text == "" {
		text = "…"
	}
	p := textParams{ChatID: cid, MessageID: parseMessage(id), Text: text, LinkPreview: &linkPreview{IsDisabled: true}}
	var res Message
	if id == "" {
		if err := b.c.Call(ctx, "sendMessage", p, &res); err != nil {
			return "", err
		}
		return bot.MessageID(strconv.FormatInt(res.ID, 10)), nil
	}
	err = b.c.Call(ctx, "editMessageText", p, &res)
	var api *APIError
	if errors.As(err, &api) && api.NotModified() {
		err = nil
	}
	return id, err
}

// tailFitting keeps the end of s that fits limit UTF-16 units.
func tailFitting(s string, limit int) string {
	if UTF16Len(s) <= limit {
		return s
	}
	n := 1 // "…"
	i := len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > limit {
			break
		}
		n += w
		i -= size
	}
	return "…" + s[i:]
}

// Typing shows "typing…" for about five seconds.
func (b *Bot) Typing(ctx context.Context, chat bot.ChatID) error {
	cid, err := parseChat(chat)
	if err != nil {
		return err
	}
	return b.c.Call(ctx, "sendChatAction", map[string]any{"chat_id": cid, "action": "typing"}, nil)
}

// AnswerCallback acknowledges a button press.
func (b *Bot) AnswerCallback(ctx context.Context, id, text string) error {
	p := map[string]any{"callback_query_id": id}
	if text != "" {
		p["text"] = clipRunes(text, 200)
	}
	return b.callRetry(ctx, "answerCallbackQuery", p, nil)
}

// validCommand reports whether name can be a Telegram command: 1 to 32
// lower-case letters, digits and underscores.
func validCommand(name string) bool {
	if len(name) < 1 || len(name) > 32 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// SetCommands publishes the commands Telegram accepts in its menu (lower
// case letters, digits and _; at most 100).
func (b *Bot) SetCommands(ctx context.Context, cmds []bot.Command) error {
	type botCommand struct {
		Command     string `json:"command"`
		Description string `json:"description"`
	}
	list := []botCommand{}
	for _, c := range cmds {
		if !validCommand(c.Name) || len(list) == 100 {
			continue
		}
		d := clipRunes(c.Description, 256)
		if d == "" {
			d = c.Name
		}
		list = append(list, botCommand{c.Name, d})
	}
	return b.callRetry(ctx, "setMyCommands", map[string]any{"commands": list}, nil)
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

var _ bot.Transport = (*Bot)(nil)
