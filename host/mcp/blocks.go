package mcp

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Block is one piece of a tool result as zut's model sees it: Type is
// "text" (Text) or "image" (MIMEType and Data, base64), the two kinds of
// block every provider accepts in a tool result.
type Block struct {
	Type     string
	Text     string
	MIMEType string
	Data     string
}

// imageTypes are the image formats providers accept in tool results.
func imageTypes() map[string]bool {
	return imageTypesLazy.get(func() map[string]bool {
		return map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}
	})
}

var imageTypesLazy lazy[map[string]bool]

// Blocks converts r for the model: text stays text, images of a format
// providers accept stay images, and everything else (audio, other
// images, resource links, embedded resources) is described in text; the
// text of an embedded text resource is included. When the result has no
// content but structured content, the structured content is the text.
func (r *Result) Blocks() []Block {
	var out []Block
	text := func(s string) { out = append(out, Block{Type: "text", Text: s}) }
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			text(c.Text)
		case "image":
			if imageTypes()[strings.ToLower(c.MIMEType)] && validBase64(c.Data) {
				out = append(out, Block{Type: "image", MIMEType: strings.ToLower(c.MIMEType), Data: c.Data})
			} else {
				text(fmt.Sprintf("[image: %s, %s; not shown]", orUnknown(c.MIMEType), base64Size(c.Data)))
			}
		case "audio":
			text(fmt.Sprintf("[audio: %s, %s; zut cannot pass audio to the model]", orUnknown(c.MIMEType), base64Size(c.Data)))
		case "resource_link":
			text(describeLink(c, r.Server))
		case "resource":
			switch rc := c.Resource; {
			case rc == nil:
			case rc.Blob != nil && imageTypes()[strings.ToLower(rc.MIMEType)] && validBase64(*rc.Blob):
				text("[resource <" + rc.URI + "> (" + rc.MIMEType + ")]")
				out = append(out, Block{Type: "image", MIMEType: strings.ToLower(rc.MIMEType), Data: *rc.Blob})
			default:
				text(DescribeContents(*rc))
			}
		default:
			text(fmt.Sprintf("[content of type %q not shown]", c.Type))
		}
	}
	if len(out) == 0 && len(r.Structured) > 0 {
		text(string(r.Structured))
	}
	return out
}

// Text is the result as one text: its blocks' texts, one per line, with
// images described.
func (r *Result) Text() string {
	var parts []string
	for _, b := range r.Blocks() {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		} else {
			parts = append(parts, fmt.Sprintf("[image: %s, %s]", b.MIMEType, base64Size(b.Data)))
		}
	}
	return strings.Join(parts, "\n")
}

func describeLink(c Content, server string) string {
	var b strings.Builder
	b.WriteString("[resource link: ")
	name := c.Title
	if name == "" {
		name = c.Name
	}
	if name != "" {
		b.WriteString(name + " ")
	}
	b.WriteString("<" + c.URI + ">")
	if c.MIMEType != "" {
		b.WriteString(" (" + c.MIMEType + ")")
	}
	if c.Description != "" {
		b.WriteString(": " + c.Description)
	}
	if server != "" {
		fmt.Fprintf(&b, "; read it with the %s tool (server %q)]", ResourceToolName, server)
	} else {
		b.WriteString("; read it with the " + ResourceToolName + " tool]")
	}
	return b.String()
}

// DescribeContents shows a resource's contents as text: a header line,
// then the text of a text resource or a note for binary data.
func DescribeContents(rc ResourceContents) string {
	head := "[resource <" + rc.URI + ">"
	if rc.MIMEType != "" {
		head += " (" + rc.MIMEType + ")"
	}
	switch {
	case rc.Text != nil:
		return head + "]\n" + *rc.Text
	case rc.Blob != nil:
		return head + ": " + base64Size(*rc.Blob) + " of binary data, not shown]"
	}
	return head + ": empty]"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}

func validBase64(s string) bool {
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil && s != ""
}

// base64Size is the decoded size of base64 data, for people.
func base64Size(s string) string {
	n := len(strings.TrimRight(s, "=")) * 3 / 4
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
