package telegram

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/zut-go/zut/agent/bot"
)

// maxCaption is Telegram's limit on a caption, in UTF-16 code units.
const maxCaption = 1024

// uploadTimeout bounds one upload.
const uploadTimeout = 5 * time.Minute

// SendFile sends f as a photo or a document (multipart, streamed). A
// caption too long for Telegram follows as a message. A photo Telegram
// refuses is sent again as a document.
func (b *Bot) SendFile(ctx context.Context, chat bot.ChatID, f bot.File) error {
	cid, err := parseChat(chat)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, uploadTimeout)
	defer cancel()
	fields := map[string]string{"chat_id": strconv.FormatInt(cid, 10)}
	longCaption := UTF16Len(f.Caption) > maxCaption
	if f.Caption != "" && !longCaption {
		fields["caption"] = f.Caption
	}
	method, field := "sendDocument", "document"
	if f.Image {
		method, field = "sendPhoto", "photo"
	}
	err = b.upload(ctx, method, fields, field, f)
	var api *APIError
	if f.Image && errors.As(err, &api) && api.Code == 400 {
		b.cfg.Log.Printf("telegram: Telegram refused %s as a photo (%s); sending it as a document", f.Name, api.Description)
		err = b.upload(ctx, "sendDocument", fields, "document", f)
	}
	if err != nil {
		return err
	}
	if longCaption {
		_, err = b.Send(ctx, chat, bot.Message{Plain: f.Caption})
	}
	return err
}

func (b *Bot) upload(ctx context.Context, method string, fields map[string]string, field string, f bot.File) error {
	for attempt := 0; ; attempt++ {
		err := b.c.Upload(ctx, method, fields, field, f.Name, f.Path, nil)
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

// Download reads an attachment through getFile; Telegram serves files up
// to 20 MB.
func (b *Bot) Download(ctx context.Context, a bot.Attachment, max int64) ([]byte, error) {
	var f File
	if err := b.callRetry(ctx, "getFile", map[string]any{"file_id": a.ID}, &f); err != nil {
		return nil, err
	}
	if f.FileSize > max {
		return nil, fmt.Errorf("the file is %d bytes, more than the %d the bot reads", f.FileSize, max)
	}
	if f.FilePath == "" {
		return nil, errors.New("Telegram gave no path to download the file from (it may be larger than 20 MB)")
	}
	return b.c.Download(ctx, f.FilePath, max)
}
