package telegramtest

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// AddUpdate queues an update of the given kind ("message",
// "edited_message", "callback_query", "my_chat_member", ...) and returns
// its update_id. With the conformance schema the update is checked against
// the Update type first.
func (s *Server) AddUpdate(kind string, payload map[string]any) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addUpdateLocked(kind, payload)
}

func (s *Server) addUpdateLocked(kind string, payload map[string]any) int64 {
	id := s.nextID
	s.nextID++
	body := map[string]any{kind: payload}
	if s.Conformance {
		check := map[string]any{"update_id": id, kind: payload}
		if err := s.Schema.checkJSON(normalizeJSON(check), "Update"); err != "" {
			s.t.Errorf("telegramtest: the scripted %s update is not a valid Update: %s", kind, err)
		}
	}
	s.updates = append(s.updates, &update{id: id, body: body})
	s.changedLocked()
	return id
}

func (s *Server) message(from User, chatID int64, chatType string) map[string]any {
	s.chats[chatID] = chatType
	chat := map[string]any{"id": chatID, "type": chatType}
	if chatType == "private" {
		chat["first_name"] = from.FirstName
		if from.Username != "" {
			chat["username"] = from.Username
		}
	} else {
		chat["title"] = "Test group"
	}
	m := map[string]any{"message_id": s.nextMsg, "from": from.json(), "chat": chat, "date": time.Now().Unix()}
	s.nextMsg++
	return m
}

func (s *Server) addMessage(m map[string]any) int64 { return s.addUpdateLocked("message", m) }

// OpenChat makes the private chat with user known, as if the user had
// written to the bot before.
func (s *Server) OpenChat(u User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chats[u.ID] = "private"
}

// SendText queues a text message from user in their private chat with the
// bot. A leading /command gets its bot_command entity, as Telegram adds.
func (s *Server) SendText(from User, text string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.message(from, from.ID, "private")
	m["text"] = text
	if strings.HasPrefix(text, "/") {
		n := strings.IndexAny(text, " \n")
		if n < 0 {
			n = len(text)
		}
		m["entities"] = []map[string]any{{"type": "bot_command", "offset": 0, "length": utf16Len(text[:n])}}
	}
	return s.addMessage(m)
}

// SendGroupText queues a text message from user in a group chat.
func (s *Server) SendGroupText(from User, chatID int64, text string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.message(from, chatID, "group")
	m["text"] = text
	return s.addMessage(m)
}

func (s *Server) addFile(data []byte, ext string) string {
	id := fmt.Sprintf("file-%d", len(s.files)+1)
	s.files[id] = &file{path: fmt.Sprintf("documents/%s%s", id, ext), data: data}
	return id
}

// SendDocument queues a document from user; getFile and the file URL serve
// data.
func (s *Server) SendDocument(from User, name, mimeType string, data []byte, caption string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.message(from, from.ID, "private")
	id := s.addFile(data, "")
	m["document"] = map[string]any{"file_id": id, "file_unique_id": "u" + id, "file_name": name, "mime_type": mimeType, "file_size": len(data)}
	if caption != "" {
		m["caption"] = caption
	}
	return s.addMessage(m)
}

// SendPhoto queues a photo from user in two sizes (a thumbnail and the
// full image, both serving data).
func (s *Server) SendPhoto(from User, data []byte, caption string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ct := http.DetectContentType(data); !strings.HasPrefix(ct, "image/") {
		s.t.Errorf("telegramtest: SendPhoto with data of type %s", ct)
	}
	m := s.message(from, from.ID, "private")
	small, big := s.addFile(data, ".jpg"), s.addFile(data, ".jpg")
	m["photo"] = []map[string]any{
		{"file_id": small, "file_unique_id": "u" + small, "width": 90, "height": 60, "file_size": len(data)},
		{"file_id": big, "file_unique_id": "u" + big, "width": 900, "height": 600, "file_size": len(data)},
	}
	if caption != "" {
		m["caption"] = caption
	}
	return s.addMessage(m)
}

// SendSticker queues a sticker, content zut cannot read.
func (s *Server) SendSticker(from User) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.message(from, from.ID, "private")
	m["sticker"] = map[string]any{"file_id": "sticker-1", "file_unique_id": "usticker-1", "type": "regular",
		"width": 512, "height": 512, "is_animated": false, "is_video": false}
	return s.addMessage(m)
}

// PressButton queues a callback query: user pressed the inline button
// with data under the bot's message messageID. It returns the query id,
// which answerCallbackQuery must answer.
func (s *Server) PressButton(from User, messageID int64, data string) string {
	s.mu.Lock()
	var msg map[string]any
	for _, m := range s.sent {
		if m.ID == messageID {
			msg = s.messageJSON(m)
		}
	}
	id := fmt.Sprintf("cbq-%d", s.nextID)
	s.callbacks[id] = true
	defer s.mu.Unlock()
	if msg == nil {
		s.t.Errorf("telegramtest: PressButton on message %d, which the bot never sent", messageID)
		return id
	}
	s.addUpdateLocked("callback_query", map[string]any{"id": id, "from": from.json(), "message": msg, "chat_instance": "ci-1", "data": data})
	return id
}

// CallbackAnswered reports whether the query id was answered.
func (s *Server) CallbackAnswered(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.callbacks[id]
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}
