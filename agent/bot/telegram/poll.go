package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zut-go/zut/agent/bot"
)

// ErrToken is returned (wrapped) by Poll when Telegram refuses the token.
var ErrToken = errors.New("Telegram refused the bot token (it was revoked or is wrong): get a new one from @BotFather (/mybots → API Token) and run zut telegram setup")

// Poll long-polls getUpdates until ctx is done or the token is refused.
// Each update's offset is recorded in the store before the update is
// handled, so that a restart never handles it again. Network errors, 5xx
// answers and 409 conflicts (another process polling the same bot) are
// logged and retried with a growing backoff; a 429 waits for its
// retry_after.
func (b *Bot) Poll(ctx context.Context, handle func(bot.Update)) error {
	backoff := b.cfg.MinBackoff
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		raws, err := b.getUpdates(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var api *APIError
			if errors.As(err, &api) && api.Unauthorized() {
				return fmt.Errorf("%w (%v)", ErrToken, err)
			}
			wait := backoff
			backoff = min(backoff*2, b.cfg.MaxBackoff)
			switch {
			case errors.As(err, &api) && api.Code == 429:
				wait = max(api.Wait, time.Second)
				b.cfg.Log.Printf("telegram: getUpdates was throttled (429); waiting %s", wait)
			case errors.As(err, &api) && api.Code == 409:
				b.cfg.Log.Printf("telegram: another process is getting this bot's updates (409 %s): stop it (is zut telegram start running, or a webhook set?); retrying in %s", api.Description, wait)
			default:
				b.cfg.Log.Printf("%v; retrying in %s", err, wait)
			}
			if sleep(ctx, wait) != nil {
				return ctx.Err()
			}
			continue
		}
		backoff = b.cfg.MinBackoff
		for _, raw := range raws {
			b.receive(ctx, raw, handle)
		}
	}
}

func (b *Bot) getUpdates(ctx context.Context) ([]json.RawMessage, error) {
	b.mu.Lock()
	off := b.offset
	b.mu.Unlock()
	p := map[string]any{
		"timeout":         int(b.cfg.PollTimeout / time.Second),
		"allowed_updates": []string{"message", "callback_query"},
	}
	if off > 0 {
		p["offset"] = off
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.PollTimeout+30*time.Second)
	defer cancel()
	var raws []json.RawMessage
	err := b.c.Call(ctx, "getUpdates", p, &raws)
	return raws, err
}

// receive records one update's offset and hands it on (or not).
func (b *Bot) receive(ctx context.Context, raw json.RawMessage, handle func(bot.Update)) {
	var u Update
	if err := json.Unmarshal(raw, &u); err != nil {
		var idOnly struct {
			ID int64 `json:"update_id"`
		}
		json.Unmarshal(raw, &idOnly)
		b.cfg.Log.Printf("telegram: skipped update %d, which does not decode: %v", idOnly.ID, err)
		b.advance(idOnly.ID)
		return
	}
	b.mu.Lock()
	seen := u.ID < b.offset
	b.mu.Unlock()
	if seen {
		b.cfg.Log.Printf("telegram: skipped update %d, handled before", u.ID)
		return
	}
	b.advance(u.ID)
	switch {
	case u.Message != nil:
		b.message(ctx, u.Message, handle)
	case u.CallbackQuery != nil:
		b.callback(ctx, u.CallbackQuery, handle)
	default:
		b.cfg.Log.Printf("telegram: ignored an update of type %q: zut reads messages and button presses", u.Kind)
	}
}

// advance records that updates up to id are handled.
func (b *Bot) advance(id int64) {
	b.mu.Lock()
	if id+1 <= b.offset {
		b.mu.Unlock()
		return
	}
	b.offset = id + 1
	off := b.offset
	b.mu.Unlock()
	if err := b.cfg.Store.SaveOffset(off); err != nil {
		b.cfg.Log.Printf("telegram: %v; after a restart update %d may be handled again", err, id)
	}
}

func (b *Bot) message(ctx context.Context, m *Message, handle func(bot.Update)) {
	if m.From == nil {
		b.cfg.Log.Printf("telegram: ignored a message without a sender in chat %d", m.Chat.ID)
		return
	}
	b.mu.Lock()
	p := b.pairing
	b.mu.Unlock()
	from := *m.From
	if p.CodeHash != "" && m.Chat.Type == "private" && !from.IsBot && strings.TrimSpace(m.Text) != "" {
		if !b.attempt(from, m.Chat.ID) {
			return // rate-limited: not even checked
		}
		if p.Matches(m.Text) {
			b.pair(ctx, m, p)
			return
		}
	}
	if !p.Paired() {
		b.refuse(ctx, m, p)
		return
	}
	if from.ID != p.UserID {
		b.cfg.Log.Printf("telegram: ignored a message from %s (user %d) in chat %d: the bot is paired with user %d only", from.Name(), from.ID, m.Chat.ID, p.UserID)
		return
	}
	if m.Chat.Type != "private" {
		b.cfg.Log.Printf("telegram: ignored a message from the paired user in %s chat %d: zut answers only in the private chat, where nobody else reads along", m.Chat.Type, m.Chat.ID)
		return
	}
	handle(toUpdate(m))
}

func toUpdate(m *Message) bot.Update {
	u := bot.Update{Chat: chatID(m.Chat.ID), User: bot.User{ID: strconv.FormatInt(m.From.ID, 10), Name: m.From.Name()}, Text: m.Text}
	if u.Text == "" {
		u.Text = m.Caption
	}
	if d := m.Document; d != nil {
		u.Attachments = append(u.Attachments, bot.Attachment{ID: d.FileID, Name: d.FileName, MIME: d.MIMEType, Size: d.FileSize})
	}
	if len(m.Photo) > 0 {
		// The sizes come smallest first; take the largest that getFile
		// serves.
		best := m.Photo[0]
		for _, ps := range m.Photo[1:] {
			if ps.FileSize <= 20<<20 {
				best = ps
			}
		}
		u.Attachments = append(u.Attachments, bot.Attachment{ID: best.FileID, Name: "photo.jpg", MIME: "image/jpeg", Size: best.FileSize, Image: true})
	}
	u.Unsupported = m.unsupported()
	return u
}

// attempt counts a pairing attempt of from and reports whether it may be
// checked: at most pairAttempts per user in pairWindow. The first
// attempt over the limit is logged, the rest of the window is quiet.
func (b *Bot) attempt(from User, chat int64) bool {
	now := b.cfg.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.tries[from.ID]
	if a == nil || now.Sub(a.start) >= pairWindow {
		if a == nil && len(b.tries) >= maxStrangers {
			forgetBefore(b.tries, now.Add(-pairWindow))
			if len(b.tries) >= maxStrangers {
				return false
			}
		}
		a = &attempts{start: now}
		b.tries[from.ID] = a
	}
	a.n++
	if a.n > pairAttempts {
		if !a.logged {
			a.logged = true
			b.cfg.Log.Printf("telegram: pairing attempts from %s (user %d) in chat %d are rate-limited: %d in %s; the rest are ignored until %s",
				from.Name(), from.ID, chat, pairAttempts, pairWindow, a.start.Add(pairWindow).Format(time.TimeOnly))
		}
		return false
	}
	b.cfg.Log.Printf("telegram: pairing attempt %d of %d from %s (user %d) in chat %d", a.n, pairAttempts, from.Name(), from.ID, chat)
	return true
}

// forgetBefore drops the attempt windows that started before t.
func forgetBefore(tries map[int64]*attempts, t time.Time) {
	for id, a := range tries {
		if a.start.Before(t) {
			delete(tries, id)
		}
	}
}

// pair pairs the sender of the pairing code (in a private chat), who
// then is the only user the bot answers; the code is spent.
func (b *Bot) pair(ctx context.Context, m *Message, p Pairing) {
	from := *m.From
	np := Pairing{UserID: from.ID, UserName: from.Name(), PairedAt: time.Now().UTC()}
	if err := b.cfg.Store.SavePairing(np); err != nil {
		b.cfg.Log.Printf("telegram: pairing with %s (user %d) failed: %v", from.Name(), from.ID, err)
		b.reply(ctx, m.Chat.ID, "⚠ The pairing could not be saved on the computer running zut; see its log.")
		return
	}
	b.mu.Lock()
	b.pairing = np
	b.mu.Unlock()
	if p.Paired() && p.UserID != from.ID {
		b.cfg.Log.Printf("telegram: user %d is no longer paired", p.UserID)
	}
	b.cfg.Log.Printf("telegram: paired with %s (user %d); messages from anyone else are ignored", from.Name(), from.ID)
	if b.cfg.OnPaired != nil {
		b.cfg.OnPaired(np)
	}
	b.reply(ctx, m.Chat.ID, "✅ Paired. This bot now answers you and nobody else. Send a message to talk to zut; /help lists the commands.")
}

// refuse answers a message while nobody is paired.
func (b *Bot) refuse(ctx context.Context, m *Message, p Pairing) {
	from := *m.From
	why := "the bot is not paired yet"
	if p.CodeHash == "" {
		why += " and has no pairing code (run zut telegram setup)"
	} else if strings.TrimSpace(m.Text) != "" {
		why += " and the message is not the pairing code"
	}
	b.cfg.Log.Printf("telegram: ignored a message from %s (user %d) in chat %d: %s", from.Name(), from.ID, m.Chat.ID, why)
	if m.Chat.Type == "private" && !from.IsBot && b.mayReply(m.Chat.ID) {
		b.reply(ctx, m.Chat.ID, "This bot is not paired yet. Send it the pairing code that zut telegram setup printed on the computer running zut.")
	}
}

// mayReply reports whether an unpaired bot may answer chat now: once per
// chat per refuseEvery.
func (b *Bot) mayReply(chat int64) bool {
	now := b.cfg.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if last, ok := b.replied[chat]; ok && now.Sub(last) < refuseEvery {
		return false
	}
	if len(b.replied) >= maxStrangers {
		for c, t := range b.replied {
			if now.Sub(t) >= refuseEvery {
				delete(b.replied, c)
			}
		}
		if len(b.replied) >= maxStrangers {
			return false
		}
	}
	b.replied[chat] = now
	return true
}

func (b *Bot) reply(ctx context.Context, chat int64, text string) {
	if _, err := b.sendPart(ctx, chat, 0, Plain(text), nil); err != nil {
		b.cfg.Log.Printf("telegram: reply in chat %d: %v", chat, err)
	}
}

func (b *Bot) callback(ctx context.Context, q *CallbackQuery, handle func(bot.Update)) {
	b.mu.Lock()
	paired := b.pairing.UserID
	b.mu.Unlock()
	if paired == 0 || q.From.ID != paired || q.Message == nil {
		b.cfg.Log.Printf("telegram: ignored a button press from %s (user %d): the bot is paired with user %d only", q.From.Name(), q.From.ID, paired)
		if err := b.AnswerCallback(ctx, q.ID, ""); err != nil {
			b.cfg.Log.Printf("telegram: %v", err)
		}
		return
	}
	handle(bot.Update{
		Chat:     chatID(q.Message.Chat.ID),
		User:     bot.User{ID: strconv.FormatInt(q.From.ID, 10), Name: q.From.Name()},
		Callback: &bot.Callback{ID: q.ID, Data: q.Data, Message: bot.MessageID(strconv.FormatInt(q.Message.ID, 10))},
	})
}
