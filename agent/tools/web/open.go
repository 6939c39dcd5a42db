package web

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// openTool is web_open: fetch a page (or a search result) and show its
// text with numbered lines, its title and the links of the lines shown.
type openTool struct{ w *Web }

var openArgs = []string{"url", "ref_id", "line"}

func (t *openTool) Definition() provider.Tool {
	return provider.Tool{Name: OpenName, Description: OpenDescription, Schema: json.RawMessage(OpenSchema)}
}

// What the model is told of the web_open tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	OpenName        = "web_open"
	OpenDescription = "Open a web page and read it as text: the page's title, its text with numbered lines (headings, lists, tables and code kept; scripts, menus and other page furniture left out), and the links on the lines shown, written [text][n] in the text and listed as [n]: URL. Shows at most 200 lines per call; pass line to read on. Plain text, JSON and Markdown are shown as they are; PDFs, images and other binary files are refused. Opens public http and https URLs; the result's ref_id names the page for web_find and web_click."
	OpenSchema      = `{"additionalProperties":false,"properties":{"line":{"description":"First line to show (default 1), to read a long page on from where the last call stopped.","minimum":1,"type":"integer"},"ref_id":{"description":"A ref_id printed by web_search or web_open, e.g. \"r3:https://go.dev/doc/\": opens that search result, or shows more of a page already opened without fetching it again.","type":"string"},"url":{"description":"The page to open, e.g. \"https://go.dev/doc/effective_go\". Give url or ref_id.","type":"string"}},"type":"object"}`
)

func (t *openTool) Preview(raw json.RawMessage) string {
	a, err := tools.ParseArgs("web_open", raw, openArgs...)
	if err != nil {
		return "web_open (bad arguments)"
	}
	target, _ := a.String("ref_id", false)
	if target == "" {
		target, _ = a.String("url", false)
	}
	s := "web_open " + tools.Clip(refTarget(target), 100)
	if line, err := a.Int("line", 1, 1, 1<<30, "a line number"); err == nil && line > 1 {
		s += " (from line " + strconv.Itoa(line) + ")"
	}
	return s
}

func (t *openTool) Mutates(json.RawMessage) bool { return false }

func (t *openTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	a, err := tools.ParseArgs("web_open", raw, openArgs...)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	u, err := a.String("url", false)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	ref, err := a.String("ref_id", false)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	line, err := a.Int("line", 1, 1, 1<<30, "a line number of at least 1")
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	if u == "" && ref == "" {
		return tools.ErrorResult("web_open: give url (the page to open) or ref_id (from web_search or web_open)")
	}
	l, err := t.w.load(ctx, "web_open", ref, u, progress)
	if err != nil {
		return asResult(err)
	}
	return t.w.view("web_open", l, line, nil)
}

// clickTool is web_click: open link n of a page opened before.
type clickTool struct{ w *Web }

var clickArgs = []string{"ref_id", "id"}

func (t *clickTool) Definition() provider.Tool {
	return provider.Tool{Name: ClickName, Description: ClickDescription, Schema: json.RawMessage(ClickSchema)}
}

// What the model is told of the web_click tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	ClickName        = "web_click"
	ClickDescription = "Follow a link of a page opened with web_open: link id is the n of [text][n] in the page's text and of its links list. Shows the new page like web_open does, with its own ref_id."
	ClickSchema      = `{"additionalProperties":false,"properties":{"id":{"description":"The link's number n, from [text][n].","minimum":1,"type":"integer"},"ref_id":{"description":"The ref_id of the page holding the link, as web_open printed it.","type":"string"}},"required":["ref_id","id"],"type":"object"}`
)

func (t *clickTool) Preview(raw json.RawMessage) string {
	a, err := tools.ParseArgs("web_click", raw, clickArgs...)
	if err != nil {
		return "web_click (bad arguments)"
	}
	ref, _ := a.String("ref_id", false)
	id, _ := a.Int("id", 0, 0, 1<<30, "a link id")
	return "web_click [" + strconv.Itoa(id) + "] on " + tools.Clip(refTarget(ref), 100)
}

func (t *clickTool) Mutates(json.RawMessage) bool { return false }

func (t *clickTool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	a, err := tools.ParseArgs("web_click", raw, clickArgs...)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	ref, err := a.String("ref_id", true)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	id, err := a.Int("id", 0, 1, 1<<30, "a link number of at least 1")
	if err == nil && !a.Present("id") {
		err = a.Errorf("id is required")
	}
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	from, err := t.w.load(ctx, "web_click", ref, "", progress)
	if err != nil {
		return asResult(err)
	}
	links := from.page.links
	switch {
	case len(links) == 0:
		return tools.ErrorResult("web_click: %s has no links to follow", from.id)
	case id > len(links):
		return tools.ErrorResult("web_click: %s has no link %d; its links are numbered 1-%d", from.id, id, len(links))
	}
	link := links[id-1]
	l, err := t.w.load(ctx, "web_click", "", link.URL, progress)
	if err != nil {
		return asResult(err)
	}
	if from.note != "" {
		l.note = from.note
	}
	return t.w.view("web_click", l, 1, &ClickedLink{From: from.id, ID: id, Text: link.Text})
}

// asResult turns an error of load into the tool's result.
func asResult(err error) tools.Result {
	var e *errResult
	if errors.As(err, &e) {
		return e.r
	}
	return tools.ErrorResult("%v", err)
}

// refTarget shows the URL of a ref, or the text itself when it is none.
func refTarget(s string) string {
	if u, ok := parseRef(s); ok {
		return u
	}
	return s
}
