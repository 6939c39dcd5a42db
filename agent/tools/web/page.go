package web

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/zut-go/zut/agent/tools/web/html"
)

// maxLineRunes is the longest line a page keeps; longer lines (minified
// JSON, one-line text files) are cut into pieces so that paging by line
// works.
const maxLineRunes = 1000

// page is a fetched document as the tools show it.
type page struct {
	url       string // after redirects
	redirects []string
	status    int
	statusMsg string
	title     string
	mediaType string
	charset   string
	note      string // a charset problem or a cut body
	size      string // "12.3 KiB", "over 5.0 MiB"
	lines     []string
	links     []html.Link
	bytes     int // the memory the page holds, roughly
}

// makePage turns a response into a page, or a *cannotShow error for
// binary documents.
func makePage(r *response, limit int) (*page, error) {
	p := &page{url: r.URL.String(), redirects: r.Redirects, status: r.Status, statusMsg: r.StatusText,
		size: sizeText(r.Read, r.Truncated, r.Length)}
	mt, _, err := mime.ParseMediaType(r.ContentType)
	if err != nil || mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream" {
		mt = sniff(r.Body)
	}
	if kind := binaryKind(mt, r.ContentType, r.Body); kind != "" {
		if kind == kindPDF && mt != "application/pdf" {
			mt = "application/pdf served as " + mt
		}
		return nil, &cannotShow{url: p.url, kind: kind, mediaType: mt, size: p.size}
	}
	p.mediaType = mt
	var text string
	if mt == "text/html" || mt == "application/xhtml+xml" {
		d := html.Decode(r.Body, r.ContentType, true)
		doc := html.Extract(d.Text, r.URL)
		p.charset, p.note = d.Charset, d.Note
		p.title, p.links, text = doc.Title, doc.Links, doc.Text
	} else {
		d := html.Decode(r.Body, r.ContentType, false)
		p.charset, p.note = d.Charset, d.Note
		text = strings.ReplaceAll(string(d.Text), "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
		if isJSON(mt) {
			text = indentJSON(text)
		}
		if mt == "text/markdown" || mt == "text/x-markdown" {
			p.title = markdownTitle(text)
		}
		text = strings.TrimRight(text, "\n")
	}
	if r.Truncated {
		cut := "the body is larger than " + sizeText(len(r.Body), false, -1) + " (the limit); only that much was read, the rest of the page is missing"
		if p.note != "" {
			p.note += "; "
		}
		p.note += cut
	}
	p.lines = splitLines(text)
	p.bytes = len(text) + len(p.links)*80
	return p, nil
}

// sniff guesses the media type of a body without a usable Content-Type.
func sniff(body []byte) string {
	head := body[:min(len(body), sniffLen)]
	mt, _, _ := mime.ParseMediaType(http.DetectContentType(head))
	if mt == "application/octet-stream" && bytes.IndexByte(head, 0) < 0 && utf8.Valid(bytes.ToValidUTF8(head, nil)) {
		return "text/plain"
	}
	return mt
}

// Kinds of documents web_open does not show.
const (
	kindPDF     = "a PDF document"
	kindImage   = "an image"
	kindArchive = "an archive"
)

// binaryKind names a document that is not text, "" for text. A body that
// starts like a PDF, or holds NUL bytes without being UTF-16, is binary
// whatever its type says.
func binaryKind(mt, contentType string, body []byte) string {
	head := body[:min(len(body), sniffLen)]
	utf16 := bytes.HasPrefix(head, []byte("\xFF\xFE")) || bytes.HasPrefix(head, []byte("\xFE\xFF")) ||
		strings.Contains(strings.ToLower(contentType), "utf-16")
	switch {
	case mt == "application/pdf" || bytes.HasPrefix(head, []byte("%PDF-")):
		return kindPDF
	case strings.HasPrefix(mt, "image/"):
		return kindImage
	case strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"):
		return "audio or video"
	case mt == "application/zip" || mt == "application/gzip" || mt == "application/x-gzip" || mt == "application/x-tar":
		return kindArchive
	case binaryType(mt) || !textual(mt):
		return "binary data"
	case bytes.IndexByte(head, 0) >= 0 && !utf16:
		return "binary data"
	}
	return ""
}

// textual reports the media types web_open shows as text.
func textual(mt string) bool {
	if strings.HasPrefix(mt, "text/") || isJSON(mt) || strings.HasSuffix(mt, "+xml") {
		return true
	}
	switch mt {
	case "application/xml", "application/javascript", "application/x-javascript", "application/ecmascript",
		"application/x-sh", "application/toml", "application/yaml", "application/x-yaml",
		"application/sql", "application/graphql", "application/x-httpd-php", "application/xhtml+xml":
		return true
	}
	return false
}

func isJSON(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "application/x-ndjson" || mt == "text/json"
}

// indentJSON indents a JSON document whose lines are too long to page;
// other text is returned as is.
func indentJSON(text string) string {
	long := false
	for _, l := range strings.Split(text, "\n") {
		if len(l) > maxLineRunes {
			long = true
			break
		}
	}
	if !long || !json.Valid([]byte(text)) {
		return text
	}
	var b bytes.Buffer
	if json.Indent(&b, []byte(text), "", "  ") != nil {
		return text
	}
	return b.String()
}

func markdownTitle(text string) string {
	for _, l := range strings.SplitN(text, "\n", 50) {
		if t, ok := strings.CutPrefix(l, "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// splitLines splits text into lines, cutting lines longer than
// maxLineRunes.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	all := strings.Split(text, "\n")
	long := false
	for _, l := range all {
		if len(l) > maxLineRunes && utf8.RuneCountInString(l) > maxLineRunes {
			long = true
			break
		}
	}
	if !long {
		return all
	}
	var lines []string
	for _, l := range all {
		for utf8.RuneCountInString(l) > maxLineRunes {
			cut, n := 0, 0
			for i := range l {
				if n == maxLineRunes {
					cut = i
					break
				}
				n++
			}
			lines = append(lines, l[:cut])
			l = l[cut:]
		}
		lines = append(lines, l)
	}
	return lines
}
