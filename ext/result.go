package ext

import (
	"encoding/base64"
	"encoding/json"

	"github.com/zut-go/zut/proto"
)

// Content block types.
const (
	ContentText  = proto.BlockText
	ContentImage = proto.BlockImage
)

// Content is one block of a tool result: text (Text) or an image (MIMEType
// and base64 Data).
type Content struct {
	Type     string // ContentText or ContentImage
	Text     string
	MIMEType string
	Data     string // base64
}

// ToolResult is a tool's answer to the model.
type ToolResult struct {
	Content []Content
	// IsError marks the call as failed; the model sees the content as the
	// error.
	IsError bool
	// Details is opaque state for the extension itself; it never reaches
	// the model. The host saves it as the extension's latest state on the
	// active session branch and returns it in later session events
	// (Event.State). Leave it nil to keep the saved state, set it to
	// json.RawMessage("null") to clear it. Keep it small (the host keeps at
	// most 256 KiB). Build it with JSONDetails.
	Details json.RawMessage
	// ActivateTools names deferred tools of this extension that the model
	// may call from now on.
	ActivateTools []string
}

// TextResult is a successful result with one text block.
func TextResult(text string) ToolResult {
	return ToolResult{Content: []Content{{Type: ContentText, Text: text}}}
}

// TextErrorResult is a failed result with one text block saying what went
// wrong.
func TextErrorResult(text string) ToolResult {
	return ToolResult{Content: []Content{{Type: ContentText, Text: text}}, IsError: true}
}

// ImageResult is a successful result with one image, given as raw bytes of
// mimeType (for example "image/png").
func ImageResult(mimeType string, data []byte) ToolResult {
	return ToolResult{Content: []Content{{Type: ContentImage, MIMEType: mimeType, Data: base64.StdEncoding.EncodeToString(data)}}}
}

// JSONDetails encodes v for ToolResult.Details. It returns nil, which keeps
// the saved state unchanged, when v cannot be encoded as JSON.
func JSONDetails(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// frame turns r into the tool_result for the call id. Details that are not
// valid JSON are dropped, and the second result says why, so that the
// reply still encodes.
func (r ToolResult) frame(id string) (proto.ToolResult, string) {
	f := proto.ToolResult{ID: id, IsError: r.IsError, ActivateTools: r.ActivateTools}
	for _, c := range r.Content {
		f.Content = append(f.Content, proto.ContentBlock{Type: c.Type, Text: c.Text, MIMEType: c.MIMEType, Data: c.Data})
	}
	var problem string
	if len(r.Details) > 0 {
		if json.Valid(r.Details) {
			f.Details = r.Details
		} else {
			problem = "details are not valid JSON; sent the result without them"
		}
	}
	return f, problem
}
