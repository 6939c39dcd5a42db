package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// fileTool is <protocol>_send_file or <protocol>_send_image: it sends a
// file of this machine to the chat.
type fileTool struct {
	name  string // the tool's name
	chat  string // "Telegram"
	image bool
	cfg   tools.Config
	lim   Limits
	send  func(ctx context.Context, f File) error
}

// fileTools returns the two file tools; send delivers a file to the chat.
func fileTools(protocol string, cfg tools.Config, lim Limits, send func(context.Context, File) error) []tools.Tool {
	prefix := strings.ToLower(protocol)
	cfg = cfg.WithDefaults()
	return []tools.Tool{
		&fileTool{name: prefix + "_send_file", chat: protocol, cfg: cfg, lim: lim, send: send},
		&fileTool{name: prefix + "_send_image", chat: protocol, image: true, cfg: cfg, lim: lim, send: send},
	}
}

func (t *fileTool) Definition() provider.Tool {
	what, limit := "a file (any type) as a document", t.lim.SendFile
	if t.image {
		what, limit = "an image (JPEG, PNG, GIF or WebP) as a photo", t.lim.SendImage
	}
	return tools.Define(t.name, fmt.Sprintf("Send %s from this machine to the user's %s chat, up to %s. Use it when the user asks for a file or when a file is the clearest answer.", what, t.chat, tools.FormatSize(limit)),
		map[string]any{
			"type": "object",
			"properties": map[string]any{
				"path":    map[string]any{"type": "string", "description": "The file to send; relative paths start in the working directory."},
				"caption": map[string]any{"type": "string", "description": "Optional text shown with the file."},
			},
			"required":             []string{"path"},
			"additionalProperties": false,
		})
}

// Preview describes a call for the confirmation and progress lines.
func (t *fileTool) Preview(args json.RawMessage) string {
	var a struct{ Path string }
	json.Unmarshal(args, &a)
	return fmt.Sprintf("send %s to %s", a.Path, t.chat)
}

func (t *fileTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	a, err := tools.ParseArgs(t.name, raw, "path", "caption")
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	path, err := a.String("path", true)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	caption, err := a.String("caption", false)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	abs := t.cfg.Resolve(path)
	shown := t.cfg.Display(abs)
	if err := t.check(abs, shown); err != "" {
		return tools.ErrorResult("%s: %s", t.name, err)
	}
	if progress != nil {
		progress("sending " + shown)
	}
	if err := t.send(ctx, File{Path: abs, Name: filepath.Base(abs), Caption: caption, Image: t.image}); err != nil {
		if ctx.Err() != nil {
			return tools.ErrorResult("%s: sending %s was cancelled: the user stopped the turn", t.name, shown)
		}
		return tools.ErrorResult("%s: could not send %s: %v", t.name, shown, err)
	}
	fi, _ := os.Stat(abs)
	size := ""
	if fi != nil {
		size = " (" + tools.FormatSize(fi.Size()) + ")"
	}
	return tools.TextResult(fmt.Sprintf("Sent %s%s to the user's %s chat.", shown, size, t.chat))
}

// check says why abs cannot be sent, or "".
func (t *fileTool) check(abs, shown string) string {
	fi, err := os.Stat(abs) // follows a symlink to what it names
	switch {
	case os.IsNotExist(err):
		return shown + ": no such file"
	case err != nil:
		return fmt.Sprintf("%s: %v", shown, err)
	case fi.IsDir():
		return shown + " is a directory; send the files in it one by one, or an archive of it"
	case !fi.Mode().IsRegular():
		return shown + " is not a regular file (a FIFO, socket or device); only regular files can be sent"
	case fi.Size() == 0:
		return shown + " is empty; Telegram does not send empty files"
	}
	limit := t.lim.SendFile
	if t.image {
		limit = t.lim.SendImage
	}
	if fi.Size() > limit {
		return fmt.Sprintf("%s is %s; the limit is %s", shown, tools.FormatSize(fi.Size()), tools.FormatSize(limit))
	}
	f, err := provider.OpenRegular(abs)
	if err != nil {
		return fmt.Sprintf("%s: %v", shown, err)
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	if !t.image {
		return ""
	}
	ct := http.DetectContentType(head[:n])
	if !imageTypes()[ct] {
		return fmt.Sprintf("%s is %s, not a JPEG, PNG, GIF or WebP image; send it with %s_send_file instead", shown, ct, strings.TrimSuffix(t.name, "_send_image"))
	}
	f.Seek(0, io.SeekStart)
	// The size is in the first segments (a JPEG's may follow its Exif
	// data); the file is not decoded.
	header, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	w, h, ok := tools.ImageSize(ct, header)
	if !ok && ct == "image/webp" {
		return "" // a WebP layout the reader does not know goes unchecked, as it always did
	}
	if !ok {
		return fmt.Sprintf("%s does not read as %s: its header holds no valid size", shown, ct)
	}
	if w+h > 10000 || w > 20*h || h > 20*w {
		return fmt.Sprintf("%s is %dx%d; a photo must have width+height at most 10000 and sides at most 20:1; send it with %s_send_file instead", shown, w, h, strings.TrimSuffix(t.name, "_send_image"))
	}
	return ""
}
