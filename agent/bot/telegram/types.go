package telegram

import "encoding/json"

// The Bot API objects zut reads. Fields zut does not use are left out.

// Update is one incoming update; exactly one of the optional fields is set
// (Kind names it).
type Update struct {
	ID            int64          `json:"update_id"`
	Message       *Message       `json:"message"`
	CallbackQuery *CallbackQuery `json:"callback_query"`
	// Kind is the name of the update's field ("message",
	// "edited_message", "my_chat_member", ...).
	Kind string `json:"-"`
}

// UnmarshalJSON decodes an update and records its kind.
func (u *Update) UnmarshalJSON(b []byte) error {
	type plain Update
	if err := json.Unmarshal(b, (*plain)(u)); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	for k := range fields {
		if k != "update_id" {
			u.Kind = k
		}
	}
	return nil
}

// User is a Telegram user or bot.
type User struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	Username  string `json:"username"`
}

// Name is how logs and messages name the user.
func (u User) Name() string {
	name := u.FirstName
	if u.LastName != "" {
		name += " " + u.LastName
	}
	if u.Username != "" {
		name += " (@" + u.Username + ")"
	}
	return name
}

// Chat is a chat; Type is "private", "group", "supergroup" or "channel".
type Chat struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
}

// Message is a message; zut reads its text, caption, document and photo.
type Message struct {
	ID       int64       `json:"message_id"`
	From     *User       `json:"from"`
	Chat     Chat        `json:"chat"`
	Text     string      `json:"text"`
	Caption  string      `json:"caption"`
	Document *Document   `json:"document"`
	Photo    []PhotoSize `json:"photo"`
	// Other content, recognised only to say what zut cannot read.
	Sticker   json.RawMessage `json:"sticker"`
	Voice     json.RawMessage `json:"voice"`
	Audio     json.RawMessage `json:"audio"`
	Video     json.RawMessage `json:"video"`
	VideoNote json.RawMessage `json:"video_note"`
	Animation json.RawMessage `json:"animation"`
	Location  json.RawMessage `json:"location"`
	Contact   json.RawMessage `json:"contact"`
	Poll      json.RawMessage `json:"poll"`
}

// unsupported names the content of m that zut cannot read, or "".
func (m *Message) unsupported() string {
	for _, c := range []struct {
		raw  json.RawMessage
		name string
	}{
		{m.Sticker, "a sticker"}, {m.Voice, "a voice message"}, {m.Audio, "an audio file"},
		{m.Video, "a video"}, {m.VideoNote, "a video message"}, {m.Animation, "an animation"},
		{m.Location, "a location"}, {m.Contact, "a contact"}, {m.Poll, "a poll"},
	} {
		if len(c.raw) > 0 {
			return c.name
		}
	}
	return ""
}

// Document is a file sent as a document.
type Document struct {
	FileID   string `json:"file_id"`
	FileName string `json:"file_name"`
	MIMEType string `json:"mime_type"`
	FileSize int64  `json:"file_size"`
}

// PhotoSize is one size of a photo.
type PhotoSize struct {
	FileID   string `json:"file_id"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	FileSize int64  `json:"file_size"`
}

// CallbackQuery is a press of an inline button.
type CallbackQuery struct {
	ID      string   `json:"id"`
	From    User     `json:"from"`
	Message *Message `json:"message"`
	Data    string   `json:"data"`
}

// File is the answer of getFile.
type File struct {
	FileID   string `json:"file_id"`
	FileSize int64  `json:"file_size"`
	FilePath string `json:"file_path"`
}
