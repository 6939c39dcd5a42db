package telegramtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// handle answers a validated call: a result, or an error code and
// description as Telegram would give them.
func (s *Server) handle(r *http.Request, c Call) (any, int, string) {
	switch c.Method {
	case "getMe":
		return s.bot, 0, ""
	case "deleteWebhook":
		return true, 0, ""
	case "getUpdates":
		return s.getUpdates(r, c)
	case "sendMessage":
		return s.sendMessage(c)
	case "editMessageText":
		return s.editMessageText(c)
	case "editMessageReplyMarkup":
		return s.editReplyMarkup(c)
	case "deleteMessage":
		return s.deleteMessage(c)
	case "sendChatAction":
		if _, code, desc := s.chat(c); code != 0 {
			return nil, code, desc
		}
		switch c.String("action") {
		case "typing", "upload_photo", "upload_document", "record_video", "upload_video", "record_voice",
			"upload_voice", "choose_sticker", "find_location", "record_video_note", "upload_video_note":
			return true, 0, ""
		}
		return nil, 400, "Bad Request: wrong parameter action in request"
	case "sendDocument", "sendPhoto":
		return s.sendFile(c)
	case "getFile":
		return s.getFile(c)
	case "answerCallbackQuery":
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.callbacks[c.String("callback_query_id")] {
			return nil, 400, "Bad Request: query is too old and response timeout expired or query ID is invalid"
		}
		delete(s.callbacks, c.String("callback_query_id"))
		if utf8.RuneCountInString(c.String("text")) > 200 {
			return nil, 400, "Bad Request: text is too long"
		}
		s.changedLocked()
		return true, 0, ""
	case "setMyCommands":
		var cmds []struct{ Command, Description string }
		if err := decodeParam(c, "commands", &cmds); err != nil {
			return nil, 400, "Bad Request: " + err.Error()
		}
		for _, cmd := range cmds {
			if !commandName.MatchString(cmd.Command) || cmd.Description == "" || utf8.RuneCountInString(cmd.Description) > 256 {
				s.fail("setMyCommands: invalid command %q (%q)", cmd.Command, cmd.Description)
				return nil, 400, "Bad Request: BOT_COMMAND_INVALID"
			}
		}
		return true, 0, ""
	}
	s.fail("%s: the fake server does not implement this method", c.Method)
	return nil, 501, "Not Implemented"
}

var commandName = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

// decodeParam decodes a parameter that is JSON (an object or array sent in
// a JSON body, or as a JSON string in a form).
func decodeParam(c Call, name string, v any) error {
	raw := c.Params[name]
	var b []byte
	if str, ok := raw.(string); ok {
		b = []byte(str)
	} else {
		b, _ = json.Marshal(raw)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("can't parse %s JSON object", name)
	}
	return nil
}

func (s *Server) chat(c Call) (int64, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chatLocked(c)
}

func (s *Server) chatLocked(c Call) (int64, int, string) {
	id, err := strconv.ParseInt(c.String("chat_id"), 10, 64)
	if _, ok := s.chats[id]; err != nil || !ok {
		return 0, 400, "Bad Request: chat not found"
	}
	return id, 0, ""
}

func (s *Server) getUpdates(r *http.Request, c Call) (any, int, string) {
	offset, _ := strconv.ParseInt(c.String("offset"), 10, 64)
	limit := 100
	if l, err := strconv.Atoi(c.String("limit")); err == nil && l >= 1 && l <= 100 {
		limit = l
	}
	timeout, _ := strconv.Atoi(c.String("timeout"))
	deadline := time.After(time.Duration(timeout) * time.Second)
	s.mu.Lock()
	s.pollGen++
	gen := s.pollGen
	if offset > s.confirmed {
		s.confirmed = offset
	}
	s.changedLocked()
	for {
		if r.Context().Err() != nil {
			s.mu.Unlock()
			return []any{}, 0, "" // the client is gone: deliver nothing
		}
		if s.pollGen != gen {
			s.mu.Unlock()
			return nil, 409, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
		}
		var out []map[string]any
		for _, u := range s.updates {
			if u.id >= s.confirmed && len(out) < limit {
				u.delivered++
				body := map[string]any{"update_id": u.id}
				for k, v := range u.body {
					body[k] = v
				}
				out = append(out, body)
			}
		}
		if len(out) > 0 || timeout <= 0 {
			s.changedLocked()
			s.mu.Unlock()
			if out == nil {
				out = []map[string]any{}
			}
			return out, 0, ""
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			timeout = 0
		case <-r.Context().Done():
			return []any{}, 0, ""
		}
		s.mu.Lock()
	}
}

func (s *Server) newMessage(chat int64, method string) *Sent {
	m := &Sent{Chat: chat, ID: s.nextMsg, Method: method}
	s.nextMsg++
	return m
}

func (s *Server) messageJSON(m *Sent) map[string]any {
	out := map[string]any{
		"message_id": m.ID, "date": time.Now().Unix(), "from": s.bot,
		"chat": map[string]any{"id": m.Chat, "type": s.chats[m.Chat]},
	}
	key := "text"
	if m.File != nil {
		key = "caption"
		id := fmt.Sprintf("sent-%d", m.ID)
		switch m.Method {
		case "sendPhoto":
			out["photo"] = []map[string]any{{"file_id": id, "file_unique_id": id, "width": 1, "height": 1, "file_size": len(m.File.Data)}}
		default:
			out["document"] = map[string]any{"file_id": id, "file_unique_id": id, "file_name": m.File.FileName, "file_size": len(m.File.Data)}
		}
	}
	if m.Text != "" {
		out[key] = m.Text
	}
	if len(m.Entities) > 0 {
		if key == "text" {
			out["entities"] = m.Entities
		} else {
			out["caption_entities"] = m.Entities
		}
	}
	if len(m.Buttons) > 0 {
		out["reply_markup"] = map[string]any{"inline_keyboard": m.Buttons}
	}
	return out
}

// parseText parses text in the call's parse_mode and checks its length.
func parseText(c Call, field string, limit int) (string, []Entity, int, string) {
	src := c.String(field)
	text, ents, err := Parse(c.String("parse_mode"), src)
	if err != nil {
		return "", nil, 400, "Bad Request: " + err.Error()
	}
	if raw, ok := c.Params["entities"]; ok && field == "text" {
		b, _ := json.Marshal(raw)
		if str, isStr := raw.(string); isStr {
			b = []byte(str)
		}
		if err := json.Unmarshal(b, &ents); err != nil {
			return "", nil, 400, "Bad Request: can't parse entities JSON object"
		}
	}
	n := 0
	for _, r := range strings.TrimSpace(text) {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	if n == 0 && field == "text" {
		return "", nil, 400, "Bad Request: message text is empty"
	}
	if n > limit {
		if field == "caption" {
			return "", nil, 400, "Bad Request: message caption is too long"
		}
		return "", nil, 400, "Bad Request: message is too long"
	}
	return text, ents, 0, ""
}

func buttons(c Call) ([][]Button, int, string) {
	if _, ok := c.Params["reply_markup"]; !ok {
		return nil, 0, ""
	}
	var markup struct {
		InlineKeyboard [][]Button `json:"inline_keyboard"`
	}
	if err := decodeParam(c, "reply_markup", &markup); err != nil {
		return nil, 400, "Bad Request: " + err.Error()
	}
	for _, row := range markup.InlineKeyboard {
		for _, b := range row {
			if b.Data == "" || len(b.Data) > 64 {
				return nil, 400, "Bad Request: BUTTON_DATA_INVALID"
			}
			if b.Text == "" {
				return nil, 400, "Bad Request: text buttons are unallowed in the inline keyboard"
			}
		}
	}
	return markup.InlineKeyboard, 0, ""
}

func (s *Server) sendMessage(c Call) (any, int, string) {
	chat, code, desc := s.chat(c)
	if code != 0 {
		return nil, code, desc
	}
	text, ents, code, desc := parseText(c, "text", 4096)
	if code != 0 {
		return nil, code, desc
	}
	kb, code, desc := buttons(c)
	if code != 0 {
		return nil, code, desc
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.newMessage(chat, "sendMessage")
	m.Text, m.Entities, m.ParseMode, m.Source, m.Buttons = text, ents, c.String("parse_mode"), c.String("text"), kb
	s.sent = append(s.sent, m)
	s.changedLocked()
	return s.messageJSON(m), 0, ""
}

func (s *Server) editMessageText(c Call) (any, int, string) {
	text, ents, code, desc := parseText(c, "text", 4096)
	if code != 0 {
		return nil, code, desc
	}
	kb, code, desc := buttons(c)
	if code != 0 {
		return nil, code, desc
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, code, desc := s.findLocked(c)
	if code != 0 {
		return nil, code, desc
	}
	if m.Text == text && entitiesEqual(m.Entities, ents) && buttonsEqual(m.Buttons, kb) {
		return nil, 400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"
	}
	m.Text, m.Entities, m.ParseMode, m.Source, m.Buttons = text, ents, c.String("parse_mode"), c.String("text"), kb
	m.Edits++
	s.changedLocked()
	return s.messageJSON(m), 0, ""
}

func (s *Server) findLocked(c Call) (*Sent, int, string) {
	chat, code, desc := s.chatLocked(c)
	if code != 0 {
		return nil, code, desc
	}
	id, _ := strconv.ParseInt(c.String("message_id"), 10, 64)
	for _, m := range s.sent {
		if m.Chat == chat && m.ID == id {
			return m, 0, ""
		}
	}
	return nil, 400, "Bad Request: message to edit not found"
}

func (s *Server) editReplyMarkup(c Call) (any, int, string) {
	kb, code, desc := buttons(c)
	if code != 0 {
		return nil, code, desc
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, code, desc := s.findLocked(c)
	if code != 0 {
		return nil, code, desc
	}
	if buttonsEqual(m.Buttons, kb) {
		return nil, 400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"
	}
	m.Buttons = kb
	m.Edits++
	s.changedLocked()
	return s.messageJSON(m), 0, ""
}

func (s *Server) deleteMessage(c Call) (any, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, code, _ := s.findLocked(c)
	if code != 0 {
		return nil, 400, "Bad Request: message to delete not found"
	}
	for i, x := range s.sent {
		if x == m {
			s.sent = append(s.sent[:i], s.sent[i+1:]...)
			break
		}
	}
	s.changedLocked()
	return true, 0, ""
}

func (s *Server) sendFile(c Call) (any, int, string) {
	chat, code, desc := s.chat(c)
	if code != 0 {
		return nil, code, desc
	}
	field := "document"
	if c.Method == "sendPhoto" {
		field = "photo"
	}
	up, ok := c.Files[field]
	if !ok {
		if str, _ := c.Params[field].(string); strings.HasPrefix(str, "attach://") {
			up, ok = c.Files[strings.TrimPrefix(str, "attach://")]
		}
	}
	if !ok {
		return nil, 400, "Bad Request: there is no " + field + " in the request"
	}
	if len(up.Data) == 0 {
		return nil, 400, "Bad Request: file must be non-empty"
	}
	if c.Method == "sendPhoto" {
		ct := http.DetectContentType(up.Data)
		if ct != "image/jpeg" && ct != "image/png" && ct != "image/webp" && ct != "image/gif" {
			return nil, 400, "Bad Request: IMAGE_PROCESS_FAILED"
		}
		if len(up.Data) > 10<<20 {
			return nil, 400, "Bad Request: PHOTO_INVALID_DIMENSIONS"
		}
	}
	if len(up.Data) > 50<<20 {
		return nil, 413, "Request Entity Too Large"
	}
	text, ents, code, desc := parseText(c, "caption", 1024)
	if code != 0 {
		return nil, code, desc
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.newMessage(chat, c.Method)
	m.Text, m.Entities, m.ParseMode, m.Source = text, ents, c.String("parse_mode"), c.String("caption")
	m.File = &up
	s.sent = append(s.sent, m)
	s.changedLocked()
	return s.messageJSON(m), 0, ""
}

func (s *Server) getFile(c Call) (any, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := c.String("file_id")
	f, ok := s.files[id]
	if !ok {
		return nil, 400, "Bad Request: invalid file_id"
	}
	if len(f.data) > 20<<20 {
		return nil, 400, "Bad Request: file is too big"
	}
	return map[string]any{"file_id": id, "file_unique_id": "u" + id, "file_size": len(f.data), "file_path": f.path}, 0, ""
}

func entitiesEqual(a, b []Entity) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func buttonsEqual(a, b [][]Button) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
