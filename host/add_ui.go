package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/zut-go/zut/proto"
)

// Registrations of capability ui2 (shortcuts, editor keys, renderers) and
// host_requests (options), and the host methods the UI calls to use them.
// Where two extensions claim the same name, the first in load order wins
// (C10), as for commands and tools.

// Option is an option an extension registered with register_option.
type Option struct {
	Name        string
	Description string
	Default     string
	Extension   string
}

// Shortcut is a key an extension claimed with register_shortcut.
type Shortcut struct {
	Key         string // canonical (proto.CanonicalKey), e.g. "ctrl+alt+p"
	Description string
	Extension   string
}

// ToolRenderer is how an extension asked to show calls of one tool.
type ToolRenderer struct {
	proto.RegisterToolRenderer
	Extension string
}

// addOnce appends v to *list under e.mu unless an element with the same
// key is there already; frame names the registration in the warning. It
// reports whether v was added.
func addOnce[T any](e *extension, list *[]T, v T, key func(T) string, frame string) bool {
	k := key(v)
	e.mu.Lock()
	for _, x := range *list {
		if key(x) == k {
			e.mu.Unlock()
			e.warn("ignored a second %s of %q", frame, k)
			return false
		}
	}
	*list = append(*list, v)
	e.mu.Unlock()
	return true
}

func (e *extension) registerOption(f *proto.RegisterOption) {
	if strings.TrimSpace(f.Name) == "" {
		e.warn("ignored register_option without a name")
		return
	}
	if addOnce(e, &e.add.options, *f, func(o proto.RegisterOption) string { return o.Name }, "register_option") {
		e.h.uiChanged()
	}
}

func (e *extension) registerShortcut(f *proto.RegisterShortcut) {
	if strings.TrimSpace(f.Key) == "" {
		e.warn("ignored register_shortcut without a key")
		return
	}
	key, err := proto.CanonicalKey(f.Key)
	if err != nil {
		e.refuseKey("register_shortcut", err)
		return
	}
	sc := proto.RegisterShortcut{Key: key, Description: f.Description}
	if addOnce(e, &e.add.shortcuts, sc, func(s proto.RegisterShortcut) string { return s.Key }, "register_shortcut") {
		e.h.uiChanged()
	}
}

func (e *extension) setEditor(keys []string) {
	var norm []string
	for _, k := range keys {
		c, err := proto.CanonicalKey(k)
		if err != nil {
			e.refuseKey("set_editor", err)
			continue
		}
		if !slices.Contains(norm, c) {
			norm = append(norm, c)
		}
	}
	e.mu.Lock()
	e.add.editorKeys = norm
	e.mu.Unlock()
	e.h.uiChanged()
}

// refuseKey reports a key name in frame that no key has (err is the
// *proto.KeyError): in the extension's log and warnings (zut ext doctor)
// and, since the extension would wait in vain for that key, in the chat.
func (e *extension) refuseKey(frame string, err error) {
	msg := fmt.Sprintf("ignored %s %v", frame, err)
	e.warn("%s", msg)
	e.h.logChat(e.name, msg)
}

func (e *extension) registerToolRenderer(f *proto.RegisterToolRenderer) {
	if f.ToolName == "" {
		e.warn("ignored register_tool_renderer without tool_name")
		return
	}
	if addOnce(e, &e.add.toolRenderers, *f, func(r proto.RegisterToolRenderer) string { return r.ToolName }, "register_tool_renderer") {
		e.h.clearRenderCache()
		e.h.uiChanged()
	}
}

func (e *extension) registerMessageRenderer(f *proto.RegisterMessageRenderer) {
	if f.Name == "" {
		e.warn("ignored register_message_renderer without a name")
		return
	}
	e.mu.Lock()
	if slices.Contains(e.add.msgRenderers, f.Name) {
		e.mu.Unlock()
		return
	}
	e.add.msgRenderers = append(e.add.msgRenderers, f.Name)
	e.mu.Unlock()
	e.h.uiChanged()
}

// progress forwards a tool_progress frame to the call it belongs to.
func (e *extension) progress(f *proto.ToolProgress) {
	e.mu.Lock()
	c := e.pending[f.ID]
	e.mu.Unlock()
	if c == nil || c.progress == nil {
		e.p.logf("ignored tool_progress for id %q: no tool call of this extension runs with that id", f.ID)
		return
	}
	c.progress(f.Text)
}

// live returns the connected extensions in load order.
func (h *Host) live() []*extension {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.liveLocked()
}

// Options returns the registered options, the first registration of each
// name in load order. Safe for concurrent use.
func (h *Host) Options() []Option {
	var out []Option
	seen := map[string]bool{}
	for _, e := range h.live() {
		e.mu.Lock()
		for _, o := range e.add.options {
			if !seen[o.Name] {
				seen[o.Name] = true
				out = append(out, Option{Name: o.Name, Description: o.Description, Default: o.Default, Extension: e.name})
			}
		}
		e.mu.Unlock()
	}
	return out
}

// Shortcuts returns the keys extensions claimed, the first claim of each
// key in load order. The UI gives its own keys precedence. Safe for
// concurrent use.
func (h *Host) Shortcuts() []Shortcut {
	var out []Shortcut
	seen := map[string]bool{}
	for _, e := range h.live() {
		e.mu.Lock()
		for _, s := range e.add.shortcuts {
			if !seen[s.Key] {
				seen[s.Key] = true
				out = append(out, Shortcut{Key: s.Key, Description: s.Description, Extension: e.name})
			}
		}
		e.mu.Unlock()
	}
	return out
}

// PressShortcut tells the owner of the shortcut key that it was pressed.
// It reports whether an extension holds the key.
func (h *Host) PressShortcut(key string) bool {
	key, err := proto.CanonicalKey(key)
	if err != nil {
		return false
	}
	for _, s := range h.Shortcuts() {
		if s.Key == key {
			if e := h.liveByName(s.Extension); e != nil {
				e.send(proto.Shortcut{Key: key})
				return true
			}
		}
	}
	return false
}

// EditorKeys returns the editor keys extensions asked for with set_editor,
// in canonical form (proto.CanonicalKey). Safe for concurrent use.
func (h *Host) EditorKeys() []string {
	var out []string
	for _, e := range h.live() {
		e.mu.Lock()
		for _, k := range e.add.editorKeys {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
		e.mu.Unlock()
	}
	return out
}

// EditorKey asks the first extension (in load order) that set key with
// set_editor what to do with it; text is the editor's content. It waits
// at most the editor key timeout. ok is false when no extension wants the
// key; on a timeout or a stopped extension the answer is passthrough.
func (h *Host) EditorKey(ctx context.Context, key, text string) (resp proto.EditorKeyResponse, ok bool) {
	key, err := proto.CanonicalKey(key)
	if err != nil {
		return proto.EditorKeyResponse{}, false
	}
	var owner *extension
	for _, e := range h.live() {
		e.mu.Lock()
		has := slices.Contains(e.add.editorKeys, key)
		e.mu.Unlock()
		if has {
			owner = e
			break
		}
	}
	if owner == nil {
		return proto.EditorKeyResponse{}, false
	}
	passthrough := proto.EditorKeyResponse{Action: proto.EditorPassthrough}
	f, err := owner.request(ctx, func(id string) proto.Frame {
		return proto.EditorKey{ID: id, Key: key, Text: text}
	}, "editor_key_response", h.t.EditorKey)
	if err != nil {
		owner.p.logf("editor key %q: %v; the editor handled it", key, err)
		return passthrough, true
	}
	r := *f.(*proto.EditorKeyResponse)
	switch r.Action {
	case proto.EditorConsumed, proto.EditorSubmit:
	case proto.EditorRemap:
		k, err := proto.CanonicalKey(r.Key)
		if err != nil {
			owner.warn("editor_key_response for %q: remap %v; the editor handled %q", key, err, key)
			return passthrough, true
		}
		r.Key = k
	default:
		r.Action = proto.EditorPassthrough
	}
	return r, true
}

// ToolRenderers returns the tool renderers, the first registration per
// tool in load order. Safe for concurrent use.
func (h *Host) ToolRenderers() []ToolRenderer {
	var out []ToolRenderer
	seen := map[string]bool{}
	for _, e := range h.live() {
		e.mu.Lock()
		for _, r := range e.add.toolRenderers {
			if !seen[r.ToolName] {
				seen[r.ToolName] = true
				out = append(out, ToolRenderer{RegisterToolRenderer: r, Extension: e.name})
			}
		}
		e.mu.Unlock()
	}
	return out
}

// ToolRenderer returns the renderer of toolName, if an extension
// registered one.
func (h *Host) ToolRenderer(toolName string) (ToolRenderer, bool) {
	for _, r := range h.ToolRenderers() {
		if r.ToolName == toolName {
			return r, true
		}
	}
	return ToolRenderer{}, false
}

// RenderTool asks the renderer of req.ToolName for the header and body of
// a tool call (req.ID is set by the host). Answers are cached by their
// inputs. An error (no renderer, timeout, stopped extension) means: use
// the default rendering. Safe for concurrent use.
func (h *Host) RenderTool(ctx context.Context, req proto.RenderTool) (proto.RenderToolResponse, error) {
	r, ok := h.ToolRenderer(req.ToolName)
	if !ok || !(r.RenderHeader || r.RenderBody) {
		return proto.RenderToolResponse{}, fmt.Errorf("render tool %q: no extension renders it", req.ToolName)
	}
	key := renderKey("tool", r.Extension, req.ToolName, string(req.Args), fmt.Sprint(req.Result != nil, req.IsError, req.Width), deref(req.Result))
	if v, ok := h.cachedRender(key); ok {
		return v.(proto.RenderToolResponse), nil
	}
	e := h.liveByName(r.Extension)
	if e == nil {
		return proto.RenderToolResponse{}, fmt.Errorf("render tool %q: extension %q stopped", req.ToolName, r.Extension)
	}
	f, err := e.request(ctx, func(id string) proto.Frame {
		req.ID = id
		return req
	}, "render_tool_response", h.t.Render)
	if err != nil {
		return proto.RenderToolResponse{}, fmt.Errorf("render tool %q: %w", req.ToolName, err)
	}
	resp := *f.(*proto.RenderToolResponse)
	resp.ID = ""
	h.cacheRender(key, resp)
	return resp, nil
}

// MessageRenderers returns the names of the message renderers, in load
// order. Safe for concurrent use.
func (h *Host) MessageRenderers() []string {
	var out []string
	for _, e := range h.live() {
		e.mu.Lock()
		for _, n := range e.add.msgRenderers {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
		e.mu.Unlock()
	}
	return out
}

// RenderMessage asks the message renderer name to draw content in width
// columns. Answers are cached. An error means: show content plainly.
func (h *Host) RenderMessage(ctx context.Context, name, content string, width int) ([]string, error) {
	var owner *extension
	for _, e := range h.live() {
		e.mu.Lock()
		has := slices.Contains(e.add.msgRenderers, name)
		e.mu.Unlock()
		if has {
			owner = e
			break
		}
	}
	if owner == nil {
		return nil, fmt.Errorf("render message: no extension registered the renderer %q", name)
	}
	key := renderKey("message", owner.name, name, content, fmt.Sprint(width))
	if v, ok := h.cachedRender(key); ok {
		return slices.Clone(v.([]string)), nil
	}
	f, err := owner.request(ctx, func(id string) proto.Frame {
		return proto.RenderMessage{ID: id, Name: name, Content: content, Width: width}
	}, "render_message_response", h.t.Render)
	if err != nil {
		return nil, fmt.Errorf("render message with %q: %w", name, err)
	}
	lines := f.(*proto.RenderMessageResponse).Lines
	h.cacheRender(key, slices.Clone(lines))
	return lines, nil
}

// CompleteCommand asks the extension owning the command name (registered
// with complete: true) for completions of the argument prefix, waiting at
// most the completion timeout. A command without completion gives none.
func (h *Host) CompleteCommand(ctx context.Context, name, prefix string) ([]string, error) {
	e, canonical, ok := h.lookupCommand(name)
	if !ok {
		return nil, fmt.Errorf("complete /%s: no extension offers this command", strings.TrimPrefix(name, "/"))
	}
	e.mu.Lock()
	complete := false
	for _, c := range e.commands {
		if c.name == canonical {
			complete = c.complete
		}
	}
	e.mu.Unlock()
	if !complete {
		return nil, nil
	}
	f, err := e.request(ctx, func(id string) proto.Frame {
		return proto.CommandComplete{ID: id, Name: canonical, Prefix: prefix}
	}, "command_completions", h.t.Complete)
	if err != nil {
		return nil, fmt.Errorf("complete /%s: %w", canonical, err)
	}
	return f.(*proto.CommandCompletions).Items, nil
}

// Capabilities returns the additive capabilities the extension name asked
// for in its hello, sorted; nil when it runs none or is not loaded.
func (h *Host) Capabilities(name string) []string {
	if e := h.liveByName(name); e != nil {
		return e.capabilities()
	}
	return nil
}

// liveByName returns the connected extension name of the current load.
func (h *Host) liveByName(name string) *extension {
	for _, e := range h.live() {
		if e.name == name {
			return e
		}
	}
	return nil
}

// renderCache keeps recent renderer answers. It is reset whenever it
// grows past its bound or a renderer is registered.
type renderCache struct {
	mu sync.Mutex
	m  map[string]any
}

const renderCacheSize = 512

func renderKey(parts ...string) string {
	b, _ := json.Marshal(parts)
	return string(b)
}

func (h *Host) cachedRender(key string) (any, bool) {
	h.render.mu.Lock()
	defer h.render.mu.Unlock()
	v, ok := h.render.m[key]
	return v, ok
}

func (h *Host) cacheRender(key string, v any) {
	h.render.mu.Lock()
	defer h.render.mu.Unlock()
	if h.render.m == nil || len(h.render.m) >= renderCacheSize {
		h.render.m = map[string]any{}
	}
	h.render.m[key] = v
}

func (h *Host) clearRenderCache() {
	h.render.mu.Lock()
	h.render.m = nil
	h.render.mu.Unlock()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
