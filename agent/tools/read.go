package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/zut-go/zut/provider"
)

// Limits of the read tool.
const (
	readMaxLines   = 2000
	readMaxBytes   = 50 << 10
	readMaxImage   = 3932160 // 3.75 MiB: 5 MiB once base64-encoded
	readMaxEntries = 500     // directory listing
)

// readTool shows a text file, an image, or a directory listing.
//
// Text comes back raw, without line-number prefixes, so that what the
// model copies into edit's oldText is exactly the file's text; the
// continuation hint carries the line numbers instead. Carriage returns of
// CRLF line ends are not shown (edit matches CRLF files by LF text).
type readTool struct{ cfg Config }

func (t *readTool) Definition() provider.Tool {
	return provider.Tool{Name: "read", Description: ReadDescription, Schema: json.RawMessage(ReadSchema)}
}

// What the model is told of the read tool: constant data, so that offering
// the tool runs no code of this package (TestToolDefinitions).
const (
	ReadDescription = "Read a file. Text is returned exactly as stored (no line-number prefixes), at most 2000 lines or 50 KiB per call; when more remains, a last line says which offset to continue from. PNG, JPEG, GIF and WebP images are returned as images. A directory returns a listing. Relative paths resolve against the working directory."
	ReadSchema      = `{"additionalProperties":false,"properties":{"limit":{"description":"Most lines to show. Default and maximum 2000.","minimum":1,"type":"integer"},"offset":{"description":"First line to show, counting from 1. Default 1.","minimum":1,"type":"integer"},"path":{"description":"File to read (relative to the working directory, absolute, or starting with ~/).","type":"string"}},"required":["path"],"type":"object"}`
)

func (t *readTool) Preview(raw json.RawMessage) string {
	a, err := parseArgs("read", raw, "path", "offset", "limit")
	if err != nil {
		return "read (bad arguments)"
	}
	p, _ := a.str("path", false)
	s := "read " + p
	if off, err := a.integer("offset", 0, 1, 1<<30, ""); err == nil && off > 0 {
		s += fmt.Sprintf(" from line %d", off)
	}
	return s
}

func (t *readTool) Mutates(json.RawMessage) bool { return false }

func (t *readTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) Result {
	a, err := parseArgs("read", raw, "path", "offset", "limit")
	if err != nil {
		return errorResult("%v", err)
	}
	p, err := a.str("path", true)
	if err != nil {
		return errorResult("%v", err)
	}
	offset, err := a.integer("offset", 1, 1, 1<<31-1, "a line number counting from 1")
	if err != nil {
		return errorResult("%v", err)
	}
	limit, err := a.integer("limit", readMaxLines, 1, 1<<31-1, "a positive number of lines")
	if err != nil {
		return errorResult("%v", err)
	}
	if p == "" {
		return errorResult("read: path is empty; give the file to read")
	}
	abs := t.cfg.resolve(p)
	if err := t.cfg.CheckScope("read", abs, false); err != nil {
		return errorResult("%v", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return t.cfg.statError("read", abs, err)
	}
	if fi.IsDir() {
		return t.listDir(abs)
	}
	if !fi.Mode().IsRegular() {
		return errorResult("read: %s is not a regular file (%s); read shows files and directories", t.cfg.display(abs), fi.Mode().Type())
	}
	f, err := t.cfg.OpenScoped("read", abs)
	if IsOpenedOutOfScope(err) {
		return errorResult("%v", err)
	}
	if err != nil {
		return t.cfg.statError("read", abs, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(sniffLen)
	if mime := imageType(head); mime != "" {
		return t.readImage(abs, mime, fi.Size(), br)
	}
	if isBinary(head) {
		return errorResult("read: %s is a binary file (%s, %s); read shows text and images only. Inspect it with bash, for example: file %s; xxd %s | head",
			t.cfg.display(abs), binaryKind(head), formatSize(fi.Size()), shellQuote(t.cfg.display(abs)), shellQuote(t.cfg.display(abs)))
	}
	return t.readText(ctx, abs, br, offset, limit)
}

// readText shows lines [offset, offset+limit) of a text file within the
// caps, and counts all lines for the continuation hint.
func (t *readTool) readText(ctx context.Context, abs string, br *bufio.Reader, offset, limit int) Result {
	limit = min(limit, readMaxLines)
	shown := t.cfg.display(abs)
	var out bytes.Buffer
	line, first, last := 0, 0, 0 // last: the last line shown in full
	var cutLine, cutSize int     // a single line too long for the byte cap
	full := false                // the caps are reached; only count from here
	for {
		if line%4096 == 0 && ctx.Err() != nil {
			return errorResult("read: %s: aborted", shown)
		}
		text, err := br.ReadSlice('\n')
		size := len(text)
		if err == bufio.ErrBufferFull { // a line longer than the buffer
			owned := append([]byte(nil), text...)
			for err == bufio.ErrBufferFull {
				var more []byte
				more, err = br.ReadSlice('\n')
				size += len(more)
				if len(owned) <= readMaxBytes {
					owned = append(owned, more...)
				}
			}
			text = owned
		}
		if size == 0 && err != nil {
			if err != io.EOF {
				return errorResult("read: %s: %v", shown, err)
			}
			break
		}
		line++
		if line < offset || full {
			continue
		}
		body := bytes.TrimSuffix(bytes.TrimSuffix(text, []byte{'\n'}), []byte{'\r'})
		sep := 0
		if out.Len() > 0 {
			sep = 1
		}
		if last-first+1 >= limit && first > 0 || out.Len()+sep+len(body) > readMaxBytes {
			if first == 0 { // the first line alone is too long
				first, cutLine, cutSize = line, line, size
				out.WriteString(cutUTF8(string(body), readMaxBytes))
			}
			full = true
			continue
		}
		if first == 0 {
			first = line
		}
		if sep == 1 {
			out.WriteByte('\n')
		}
		out.Write(body)
		last = line
	}
	total := line
	switch {
	case total == 0:
		return textResult(fmt.Sprintf("[%s is empty]", shown))
	case offset > total:
		return errorResult("read: offset %d is past the end of %s, which has %s; call read with a smaller offset", offset, shown, plural(total, "line"))
	}
	if cutLine > 0 {
		fmt.Fprintf(&out, "\n\n[line %d is %s, over the %s read limit: showing its first %s. See the rest with bash, for example: sed -n '%dp' %s | cut -c %d-",
			cutLine, formatSize(int64(cutSize)), formatSize(readMaxBytes), formatSize(readMaxBytes), cutLine, shellQuote(shown), readMaxBytes+1)
		if cutLine < total {
			fmt.Fprintf(&out, "; call read with offset=%d to continue after it", cutLine+1)
		}
		out.WriteString("]")
	} else if last < total {
		fmt.Fprintf(&out, "\n\n[showing lines %d-%d of %d; call read with offset=%d to continue]", first, last, total, last+1)
	}
	return textResult(out.String())
}

// readImage returns an image file as an image block after a text line
// naming its type, size and dimensions.
func (t *readTool) readImage(abs, mime string, size int64, r io.Reader) Result {
	shown := t.cfg.display(abs)
	if size > readMaxImage {
		return errorResult("read: image %s is %s, over the %s limit for images sent to the model; make a smaller copy with bash (for example: convert %s -resize 50%% /tmp/small.png) and read that",
			shown, formatSize(size), formatSize(readMaxImage), shellQuote(shown))
	}
	data, err := io.ReadAll(io.LimitReader(r, readMaxImage+1))
	if err != nil {
		return errorResult("read: %s: %v", shown, err)
	}
	if len(data) > readMaxImage {
		return errorResult("read: image %s grew over the %s limit while being read; try again", shown, formatSize(readMaxImage))
	}
	desc := fmt.Sprintf("[%s: %s, %s", shown, mime, formatSize(int64(len(data))))
	if w, h, ok := ImageSize(mime, data); ok {
		desc += fmt.Sprintf(", %dx%d", w, h)
	}
	desc += "]"
	return Result{Content: []provider.Block{
		provider.TextBlock(desc),
		{Type: provider.BlockImage, MIMEType: mime, Data: base64.StdEncoding.EncodeToString(data)},
	}}
}

// listDir answers a read of a directory with a short listing.
func (t *readTool) listDir(abs string) Result {
	shown := t.cfg.display(abs)
	entries, err := os.ReadDir(abs)
	if err != nil && len(entries) == 0 {
		return t.cfg.statError("read", abs, err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			n += "/"
		} else if e.Type()&os.ModeSymlink != 0 {
			if fi, err := os.Stat(abs + string(os.PathSeparator) + e.Name()); err == nil && fi.IsDir() {
				n += "/"
			}
		}
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return textResult(fmt.Sprintf("[%s is an empty directory]", shown))
	}
	var b strings.Builder
	count := fmt.Sprintf("%d entries", len(names))
	if len(names) == 1 {
		count = "1 entry"
	}
	fmt.Fprintf(&b, "[%s is a directory with %s; read shows files. Its entries (directories end in /):]\n", shown, count)
	for i, n := range names {
		if i == readMaxEntries {
			fmt.Fprintf(&b, "[... %d more entries; use bash (ls, find) to see them all]\n", len(names)-i)
			break
		}
		b.WriteString(n)
		b.WriteByte('\n')
	}
	return textResult(strings.TrimRight(b.String(), "\n"))
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./~+,:=@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
