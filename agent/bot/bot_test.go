package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

func TestParseCommand(t *testing.T) {
	tests := []struct{ in, name, args string }{
		{"/new", "new", ""},
		{"/model anthropic/claude", "model", "anthropic/claude"},
		{"/Stop@zut_bot", "stop", ""},
		{"/compact   keep the plan  ", "compact", "keep the plan"},
		{"/todo\nbuy milk", "todo", "buy milk"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			name, args := parseCommand(tc.in)
			if name != tc.name || args != tc.args {
				t.Errorf("parseCommand(%q) = %q, %q; want %q, %q", tc.in, name, args, tc.name, tc.args)
			}
		})
	}
}

func pngOf(w, h int) []byte {
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h)))
	return b.Bytes()
}

func TestFileToolChecks(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", []byte("hello"))
	write("empty.txt", nil)
	write("big.txt", bytes.Repeat([]byte("x"), 2000))
	write("ok.png", pngOf(10, 10))
	write("wide.png", pngOf(2100, 100))
	write("fake.png", []byte("not an image at all"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink(filepath.Join(dir, "a.txt"), filepath.Join(dir, "link.txt"))
	os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "linkdir"))
	var sent []File
	ts := fileTools("Telegram", tools.Config{CWD: dir}, Limits{SendFile: 1000, SendImage: 1 << 20}.withDefaults(), func(_ context.Context, f File) error {
		sent = append(sent, f)
		return nil
	})
	tests := []struct {
		tool    int // 0 file, 1 image
		args    string
		wantErr string
	}{
		{0, `{"path":"a.txt","caption":"hi"}`, ""},
		{0, `{"path":"link.txt"}`, ""},
		{0, `{"path":"missing.txt"}`, "missing.txt: no such file"},
		{0, `{"path":"sub"}`, "is a directory"},
		{0, `{"path":"linkdir"}`, "is a directory"},
		{0, `{"path":"empty.txt"}`, "is empty"},
		{0, `{"path":"big.txt"}`, "the limit is 1000 B"},
		{0, `{}`, "path"},
		{0, `{"path":"a.txt","extra":1}`, "extra"},
		{1, `{"path":"ok.png"}`, ""},
		{1, `{"path":"wide.png"}`, "sides at most 20:1"},
		{1, `{"path":"fake.png"}`, "not a JPEG, PNG, GIF or WebP image; send it with telegram_send_file"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			n := len(sent)
			r := ts[tc.tool].Run(context.Background(), json.RawMessage(tc.args), nil)
			if tc.wantErr == "" {
				if r.IsError || len(sent) != n+1 {
					t.Fatalf("Run(%s) = %q, want a sent file", tc.args, r.Text())
				}
				return
			}
			if !r.IsError || !strings.Contains(r.Text(), tc.wantErr) || len(sent) != n {
				t.Errorf("Run(%s) = %q (error %v), want an error with %q and nothing sent", tc.args, r.Text(), r.IsError, tc.wantErr)
			}
		})
	}
	if sent[0].Caption != "hi" || sent[0].Name != "a.txt" || !filepath.IsAbs(sent[0].Path) {
		t.Errorf("sent = %+v", sent[0])
	}
	if !sent[2].Image {
		t.Errorf("the image was sent as %+v", sent[2])
	}
}

func TestClassify(t *testing.T) {
	lim := Limits{Image: 100, Text: 10}.withDefaults()
	tests := []struct {
		name  string
		a     Attachment
		data  []byte
		image bool
		text  string // a substring of the text for the model
		note  string
	}{
		{"png", Attachment{Name: "p.png"}, pngOf(2, 2), true, "", ""},
		{"big image", Attachment{Name: "p.png"}, pngOf(200, 200), false, "larger than", "larger than 100 B"},
		{"text", Attachment{Name: "a.go", MIME: "text/x-go"}, []byte("package a"), false, "[File a.go]\npackage a\n[End of file a.go]", ""},
		{"long text", Attachment{Name: "l.txt"}, []byte("0123456789abcdef"), false, "the first 10 B of 16 B", "first 10 B"},
		{"binary", Attachment{Name: "x.bin", MIME: "application/octet-stream"}, []byte{0, 1, 2}, false, "cannot read", "cannot read x.bin"},
		{"pdf", Attachment{Name: "doc.pdf", MIME: "application/pdf"}, []byte("%PDF-1.4 text"), false, "application/pdf", "cannot read"},
		{"latin1", Attachment{Name: "old.txt"}, []byte("caf\xe9"), false, "cannot read", "cannot read"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			block, text, note := classify(tc.a, tc.a.Name, tc.data, lim)
			if (block != nil) != tc.image || (block != nil && block.Type != provider.BlockImage) {
				t.Errorf("classify(%s) block = %+v, want image %v", tc.name, block, tc.image)
			}
			if !strings.Contains(text, tc.text) {
				t.Errorf("classify(%s) text = %q, want %q in it", tc.name, text, tc.text)
			}
			if (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
				t.Errorf("classify(%s) note = %q, want %q", tc.name, note, tc.note)
			}
		})
	}
}

func TestStatusText(t *testing.T) {
	got := statusText(Status{Model: "a/b", Session: "s1", Title: "fix", CWD: "/w", Messages: 3, ContextTokens: 250, ContextWindow: 1000, CostUSD: 0.0123}, true, 2)
	want := "Model: a/b\nSession: s1 (fix)\nDirectory: /w\nMessages: 3\nContext: 250 of 1000 tokens (25%)\nCost: $0.0123\nState: working, 2 queued"
	if got != want {
		t.Errorf("statusText = %q, want %q", got, want)
	}
}

func TestQueue(t *testing.T) {
	q := newQueue[int]()
	for i := range 3 {
		q.push(i)
	}
	if v, ok, open := q.pop(); v != 0 || !ok || !open {
		t.Errorf("pop = %d %v %v, want 0 true true", v, ok, open)
	}
	if n := len(q.clear()); n != 2 {
		t.Errorf("clear dropped %d, want 2", n)
	}
	q.close()
	if q.push(9) {
		t.Error("push after close succeeded")
	}
	if _, ok, open := q.pop(); ok || open {
		t.Errorf("pop on a closed empty queue = %v %v, want false false", ok, open)
	}
}
