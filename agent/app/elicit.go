package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zut-go/zut/agent/subagent"
	"github.com/zut-go/zut/host/mcp"
	"github.com/zut-go/zut/proto"
)

// Elicitation: an MCP server asks the user for values (a form) or to
// visit a page (URL mode). The form becomes a run of the UI's dialogs,
// the ones extensions open (ui.select, ui.confirm, ui.input): in the
// interactive UI they are drawn over the editor; in RPC mode they are
// extension_ui_request events the client answers (docs/rpc.md). In print
// and JSON modes nobody can answer, and a subagent's calls may not ask
// the user, so those requests are refused with an error that says so.

// elicitSeq numbers the dialogs of elicitations.
var elicitSeq atomic.Int64

// errNoElicit is the refusal of print and JSON modes.
var errNoElicit = errors.New("zut runs without a user here (print or JSON mode), so nobody can answer; run the prompt in the interactive UI or RPC mode")

// elicit answers an MCP server's elicitation/create.
func (a *App) elicit(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
	if a.front.OneShot {
		a.mcpNote(server, fmt.Sprintf("mcp server %q asked the user a question (%q); refused: %v", server, req.Message, errNoElicit))
		return mcp.ElicitResult{}, errNoElicit
	}
	if a.mcpCalls.onlySubagents(server) {
		return mcp.ElicitResult{}, errors.New("the call came from a subagent, which cannot ask the user questions")
	}
	ext := "mcp:" + server
	title := fmt.Sprintf("MCP server %q asks", server)
	if req.Mode == "url" {
		i, ok := a.dialogSelect(ctx, ext, proto.UIRequest{Title: title,
			Message: req.Message + "\n\nIt wants you to open " + req.URL, Options: []string{"Open the page", "Decline"}})
		switch {
		case !ok:
			return mcp.ElicitResult{Action: "cancel"}, nil
		case i != 0:
			return mcp.ElicitResult{Action: "decline"}, nil
		}
		a.ui.get().Notify(ext, "info", "open "+req.URL)
		if open := mcp.OpenBrowser(a.env.Getenv); open != nil {
			go open(context.Background(), req.URL)
		}
		return mcp.ElicitResult{Action: "accept"}, nil
	}
	var fields []string
	for _, f := range req.Fields {
		fields = append(fields, fieldLabel(f))
	}
	msg := req.Message
	if len(fields) > 0 {
		msg += "\n\nIt asks for: " + strings.Join(fields, ", ")
	}
	i, ok := a.dialogSelect(ctx, ext, proto.UIRequest{Title: title, Message: msg, Options: []string{"Answer", "Decline"}})
	switch {
	case !ok:
		return mcp.ElicitResult{Action: "cancel"}, nil
	case i != 0:
		return mcp.ElicitResult{Action: "decline"}, nil
	}
	content := map[string]any{}
	for _, f := range req.Fields {
		v, ok, err := a.askField(ctx, ext, f)
		if err != nil {
			return mcp.ElicitResult{}, err
		}
		if !ok {
			return mcp.ElicitResult{Action: "cancel"}, nil
		}
		if v != nil {
			content[f.Name] = v
		}
	}
	return mcp.ElicitResult{Action: "accept", Content: content}, nil
}

func fieldLabel(f mcp.ElicitField) string {
	l := f.Title
	if l == "" {
		l = f.Name
	}
	if f.Required {
		l += " (required)"
	}
	return l
}

// askField asks for one field until the answer fits it (three tries);
// an empty answer to an optional field leaves it out (its default
// applies). ok is false when the user cancelled.
func (a *App) askField(ctx context.Context, ext string, f mcp.ElicitField) (v any, ok bool, err error) {
	desc := f.Description
	var problem string
	for try := 0; try < 3; try++ {
		msg := desc
		if problem != "" {
			msg = problem + "\n\n" + desc
		}
		req := proto.UIRequest{Title: fieldLabel(f), Message: strings.TrimSpace(msg)}
		switch {
		case f.Type == "boolean":
			req.Kind = proto.UIConfirm
			if b, isBool := f.Default.(bool); isBool {
				req.Default, _ = json.Marshal(b)
			}
			r, answered := a.dialog(ctx, ext, req)
			if !answered || r.Cancelled {
				return nil, false, nil
			}
			var b bool
			_ = json.Unmarshal(r.Value, &b)
			return b, true, nil
		case f.Type == "string" && len(f.Options) > 0:
			req.Kind = proto.UISelect
			for _, o := range f.Options {
				req.Options = append(req.Options, o.Label)
				if o.Value == f.Default {
					req.Default, _ = json.Marshal(o.Label)
				}
			}
			i, answered := a.dialogSelect(ctx, ext, req)
			if !answered {
				return nil, false, nil
			}
			return f.Options[i].Value, true, nil
		default:
			req.Kind = proto.UIInput
			if f.Default != nil {
				req.Default, _ = json.Marshal(fmt.Sprint(f.Default))
			}
			if f.Type == "array" {
				var labels []string
				for _, o := range f.Options {
					labels = append(labels, o.Label)
				}
				req.Placeholder = "comma-separated: " + strings.Join(labels, ", ")
			}
			r, answered := a.dialog(ctx, ext, req)
			if !answered || r.Cancelled {
				return nil, false, nil
			}
			var text string
			_ = json.Unmarshal(r.Value, &text)
			if strings.TrimSpace(text) == "" && !f.Required {
				return nil, true, nil
			}
			v, perr := f.Parse(text)
			if perr == nil {
				return v, true, nil
			}
			problem = perr.Error()
		}
	}
	return nil, false, fmt.Errorf("%s: %s", fieldLabel(f), problem)
}

// dialog shows req and waits for the answer; ok is false when ctx ended
// first (the dialog is closed).
func (a *App) dialog(ctx context.Context, ext string, req proto.UIRequest) (proto.UIResponse, bool) {
	req.ID = fmt.Sprintf("mcp-elicit-%d", elicitSeq.Add(1))
	if req.Kind == "" {
		req.Kind = proto.UISelect
	}
	got := make(chan proto.UIResponse, 1)
	a.ui.get().UIRequest(ext, req, func(r proto.UIResponse) {
		select {
		case got <- r:
		default:
		}
	})
	select {
	case r := <-got:
		return r, true
	case <-ctx.Done():
		a.ui.get().UIRequestDone(ext, req.ID)
		return proto.UIResponse{}, false
	}
}

// dialogSelect shows a select and returns the chosen index; ok is false
// when the user cancelled.
func (a *App) dialogSelect(ctx context.Context, ext string, req proto.UIRequest) (int, bool) {
	req.Kind = proto.UISelect
	r, ok := a.dialog(ctx, ext, req)
	if !ok || r.Cancelled || r.Index == nil || *r.Index < 0 || *r.Index >= len(req.Options) {
		return 0, false
	}
	return *r.Index, true
}

// mcpCallCount counts the MCP tool calls in flight per server, by the
// main agent and by subagents: a server's elicitation is refused when
// only subagents are calling it.
type mcpCallCount struct {
	mu   sync.Mutex
	main map[string]int
	sub  map[string]int
}

func newMCPCallCount() *mcpCallCount {
	return &mcpCallCount{main: map[string]int{}, sub: map[string]int{}}
}

// begin records a call to server from ctx and returns its end.
func (c *mcpCallCount) begin(ctx context.Context, server string) func() {
	if c == nil {
		return func() {}
	}
	m := c.main
	if subagent.InChild(ctx) {
		m = c.sub
	}
	c.mu.Lock()
	m[server]++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		m[server]--
		c.mu.Unlock()
	}
}

func (c *mcpCallCount) onlySubagents(server string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.main[server] == 0 && c.sub[server] > 0
}
