package host

import "github.com/zut-go/zut/proto"

// panelSlot is the single panel slot (C17): which extension owns the open
// panel, and its id. The zero value is an empty slot.
type panelSlot struct {
	e  *extension
	id string
}

// openPanel gives the slot to e's panel p. A different panel in the slot
// is closed first, and its owner gets panel_close (C17).
func (h *Host) openPanel(e *extension, p proto.Panel) {
	if p.ID == "" {
		e.warn("ignored a panel without id")
		return
	}
	h.mu.Lock()
	prev := h.panel
	h.panel = panelSlot{e: e, id: p.ID}
	h.mu.Unlock()
	if prev.e != nil && (prev.e != e || prev.id != p.ID) {
		prev.e.send(proto.PanelClose{PanelID: prev.id})
	}
	if h.cb.OpenPanel != nil {
		h.cb.OpenPanel(e.name, p)
	}
}

// renderPanel redraws e's panel when it is the open one.
func (h *Host) renderPanel(e *extension, f *proto.PanelRender) {
	h.mu.Lock()
	open := h.panel.e == e && h.panel.id == f.PanelID
	h.mu.Unlock()
	if !open {
		e.p.logf("ignored panel_render for %q: that panel is not open", f.PanelID)
		return
	}
	if h.cb.RenderPanel != nil {
		h.cb.RenderPanel(e.name, proto.Panel{ID: f.PanelID, Title: f.Title, Lines: f.Lines, Footer: f.Footer})
	}
}

// closePanelFrom handles an extension's panel_close.
func (h *Host) closePanelFrom(e *extension, id string) {
	h.mu.Lock()
	open := h.panel.e == e && h.panel.id == id
	if open {
		h.panel = panelSlot{}
	}
	h.mu.Unlock()
	if !open {
		e.p.logf("ignored panel_close for %q: that panel is not open", id)
		return
	}
	if h.cb.ClosePanel != nil {
		h.cb.ClosePanel(e.name, id)
	}
}

// Panel returns the owner and id of the open extension panel, or empty
// strings.
func (h *Host) Panel() (ext, panelID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.panel.e == nil {
		return "", ""
	}
	return h.panel.e.name, h.panel.id
}

// PanelKey sends a key pressed in the focused panel panelID to its owner.
// key is a normalised key name; text is the character for key "rune".
// Keys for a panel that is not open are dropped.
func (h *Host) PanelKey(panelID, key, text string) {
	h.mu.Lock()
	slot := h.panel
	h.mu.Unlock()
	if slot.e == nil || slot.id != panelID {
		return
	}
	slot.e.send(proto.PanelKey{PanelID: panelID, Key: key, Text: text})
}

// PanelClosed tells the owner of panelID that the user closed it (Esc,
// Ctrl+C) and frees the slot (C17).
func (h *Host) PanelClosed(panelID string) {
	h.mu.Lock()
	slot := h.panel
	if slot.e != nil && slot.id == panelID {
		h.panel = panelSlot{}
	}
	h.mu.Unlock()
	if slot.e == nil || slot.id != panelID {
		return
	}
	slot.e.send(proto.PanelClose{PanelID: panelID})
}
