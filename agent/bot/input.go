package bot

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/agent"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Limits bound the files that pass through the bot. Zero fields take the
// defaults.
type Limits struct {
	Download  int64 // a file the user sends (default 20 MiB, what Telegram's getFile serves)
	Image     int64 // an image passed to the model (default 5 MiB)
	Text      int64 // a document passed to the model as text (default 256 KiB)
	SendFile  int64 // a file telegram_send_file sends (default 50 MiB)
	SendImage int64 // an image telegram_send_image sends (default 10 MiB)
}

func (l Limits) withDefaults() Limits {
	set := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	set(&l.Download, 20<<20)
	set(&l.Image, 5<<20)
	set(&l.Text, 256<<10)
	set(&l.SendFile, 50<<20)
	set(&l.SendImage, 10<<20)
	return l
}

func imageTypes() map[string]bool {
	return imageTypesLazy.get(func() map[string]bool {
		return map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}
	})
}

var imageTypesLazy lazy[map[string]bool]

// buildInput turns an update into a prompt: images become image blocks,
// text documents are appended as text, other files are described. notes
// are told to the user (a file that could not be read).
func buildInput(ctx context.Context, t Transport, lim Limits, u Update) (in agent.Input, notes []string) {
	in = agent.Input{Text: u.Text, Source: "telegram"}
	var parts []string
	if strings.TrimSpace(u.Text) != "" {
		parts = append(parts, u.Text)
	}
	for _, a := range u.Attachments {
		name := a.Name
		if name == "" {
			name = "the photo"
			if !a.Image {
				name = "the file"
			}
		}
		if a.Size > lim.Download {
			notes = append(notes, fmt.Sprintf("%s is %s; the bot reads files up to %s. Send a smaller file or paste the part that matters.", name, tools.FormatSize(a.Size), tools.FormatSize(lim.Download)))
			parts = append(parts, fmt.Sprintf("[The user attached %s (%s), which was too large to read.]", name, tools.FormatSize(a.Size)))
			continue
		}
		data, err := t.Download(ctx, a, lim.Download)
		if err != nil {
			notes = append(notes, fmt.Sprintf("Could not download %s: %v. Send it again.", name, err))
			parts = append(parts, fmt.Sprintf("[The user attached %s, which could not be downloaded.]", name))
			continue
		}
		block, text, note := classify(a, name, data, lim)
		switch {
		case block != nil:
			in.Images = append(in.Images, *block)
		case text != "":
			parts = append(parts, text)
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	in.Text = strings.Join(parts, "\n\n")
	if in.Text == "" && len(in.Images) > 0 {
		in.Text = "(The user sent this image without a caption.)"
	}
	return in, notes
}

// classify decides how the model sees a downloaded file.
func classify(a Attachment, name string, data []byte, lim Limits) (block *provider.Block, text, note string) {
	sniffed := http.DetectContentType(data)
	if imageTypes()[sniffed] {
		if int64(len(data)) > lim.Image {
			return nil, fmt.Sprintf("[The user attached the image %s (%s), larger than the %s the model is sent.]", name, tools.FormatSize(int64(len(data))), tools.FormatSize(lim.Image)),
				fmt.Sprintf("%s is larger than %s, so the model does not see it; send a smaller image.", name, tools.FormatSize(lim.Image))
		}
		return &provider.Block{Type: provider.BlockImage, MIMEType: sniffed, Data: base64.StdEncoding.EncodeToString(data)}, "", ""
	}
	if isText(a, data) {
		body := string(data)
		cut := ""
		if int64(len(data)) > lim.Text {
			body = strings.ToValidUTF8(string(data[:lim.Text]), "")
			cut = fmt.Sprintf(" (the first %s of %s)", tools.FormatSize(lim.Text), tools.FormatSize(int64(len(data))))
			note = fmt.Sprintf("%s is long; the model sees its first %s.", name, tools.FormatSize(lim.Text))
		}
		return nil, fmt.Sprintf("[File %s%s]\n%s\n[End of file %s]", name, cut, body, name), note
	}
	mime := a.MIME
	if mime == "" {
		mime = sniffed
	}
	return nil, fmt.Sprintf("[The user attached %s (%s, %s), which zut cannot read as text or as an image.]", name, mime, tools.FormatSize(int64(len(data)))),
		fmt.Sprintf("The model cannot read %s (%s); it only knows that you sent it.", name, mime)
}

// isText reports whether data reads as text: valid UTF-8 without NUL
// bytes (its first 64 KiB are checked).
func isText(a Attachment, data []byte) bool {
	if len(data) == 0 || bytes.IndexByte(data, 0) >= 0 {
		return false
	}
	switch strings.ToLower(filepath.Ext(a.Name)) {
	case ".pdf", ".zip", ".gz", ".png", ".jpg", ".jpeg", ".exe":
		return false
	}
	head := data[:min(len(data), 64<<10)]
	// The cut may split the last character.
	for i := 0; i < utf8.UTFMax-1 && len(head) < len(data) && !utf8.Valid(head); i++ {
		head = head[:len(head)-1]
	}
	return utf8.Valid(head)
}
