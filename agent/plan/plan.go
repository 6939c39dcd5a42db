// Package plan is the plan tool: the model keeps a checklist of its work
// (each item pending, in_progress or done) and replaces it whole with
// every call, as a todo list. The package validates the list, words it
// for the model and for people (Text, Summary), and hands it to the host
// to store in the session and show (Config.Save); it keeps no state.
package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/zut-go/zut/agent/session"
	"github.com/zut-go/zut/agent/tools"
	"github.com/zut-go/zut/provider"
)

// Limits of one plan.
const (
	MaxItems    = 50
	MaxItemText = 500 // bytes
	MaxNote     = 1000
)

// Config is what the tool needs from its host.
type Config struct {
	// Save stores the new plan (in the session, per branch) and shows it;
	// an error is reported to the model. Required.
	Save func(session.Checklist) error
}

// New returns the plan tool.
func New(c Config) tools.Tool { return &tool{c: c} }

type tool struct{ c Config }

var statuses = []string{session.ItemPending, session.ItemInProgress, session.ItemDone}

func (t *tool) Definition() provider.Tool {
	return provider.Tool{Name: ToolName, Description: ToolDescription, Schema: json.RawMessage(ToolSchema)}
}

// What the model is told of the plan tool: constant data, so that
// offering the tool runs no code of this package (TestToolDefinitions).
const (
	ToolName        = "plan"
	ToolDescription = "Keep a checklist of your work on the current task and show it to the user. Each call replaces the whole plan: send every item, in order, with its status: pending, in_progress (the one you work on now; at most one) or done. Use it for tasks of three or more steps: write the plan before you start, mark an item in_progress when you begin it and done as soon as it is finished, and add items you discover. Skip it for simple one-step requests. An empty items list clears the plan."
	ToolSchema      = `{"additionalProperties":false,"properties":{"items":{"description":"The whole plan, in order.","items":{"additionalProperties":false,"properties":{"status":{"enum":["pending","in_progress","done"],"type":"string"},"text":{"description":"The step, in a few words (imperative: \"Add the parser test\").","type":"string"}},"required":["text","status"],"type":"object"},"maxItems":50,"type":"array"},"note":{"description":"Optional: one line about the plan as a whole (what changed, what blocks it).","type":"string"}},"required":["items"],"type":"object"}`
)

// Parse decodes and checks the arguments of a plan call.
func Parse(raw json.RawMessage) (session.Checklist, error) {
	a, err := tools.ParseArgs("plan", raw, "items", "note")
	if err != nil {
		return session.Checklist{}, err
	}
	note, err := a.String("note", false)
	if err != nil {
		return session.Checklist{}, err
	}
	if len(note) > MaxNote {
		return session.Checklist{}, a.Errorf("note is %d bytes; keep it under %d", len(note), MaxNote)
	}
	rawItems := a.Raw("items")
	if rawItems == nil {
		return session.Checklist{}, a.Errorf("items is required: send the whole plan, e.g. {\"items\":[{\"text\":\"Read the code\",\"status\":\"in_progress\"}]}")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(rawItems, &list); err != nil {
		return session.Checklist{}, a.Errorf("items must be an array of {text, status} objects")
	}
	if len(list) > MaxItems {
		return session.Checklist{}, a.Errorf("the plan has %d items; keep it to %d or fewer by grouping steps", len(list), MaxItems)
	}
	c := session.Checklist{Items: []session.ChecklistItem{}, Note: strings.TrimSpace(note)}
	active := []int{}
	for i, r := range list {
		ia, err := tools.ParseArgs("plan", r, "text", "status")
		if err != nil {
			return session.Checklist{}, fmt.Errorf("plan: item %d: %v", i+1, strings.TrimPrefix(err.Error(), "plan: "))
		}
		text, err := ia.String("text", true)
		if err == nil && strings.TrimSpace(text) == "" {
			err = ia.Errorf("text is empty")
		}
		if err != nil {
			return session.Checklist{}, fmt.Errorf("plan: item %d: %v", i+1, strings.TrimPrefix(err.Error(), "plan: "))
		}
		if len(text) > MaxItemText {
			return session.Checklist{}, fmt.Errorf("plan: item %d is %d bytes; keep each step under %d", i+1, len(text), MaxItemText)
		}
		status, err := ia.String("status", true)
		if err != nil {
			return session.Checklist{}, fmt.Errorf("plan: item %d: %v", i+1, strings.TrimPrefix(err.Error(), "plan: "))
		}
		switch status {
		case session.ItemPending, session.ItemDone:
		case session.ItemInProgress:
			active = append(active, i+1)
		default:
			return session.Checklist{}, fmt.Errorf("plan: item %d: status %q is not pending, in_progress or done", i+1, status)
		}
		c.Items = append(c.Items, session.ChecklistItem{Text: strings.TrimSpace(text), Status: status})
	}
	if len(active) > 1 {
		return session.Checklist{}, fmt.Errorf("plan: items %s are all in_progress; only one item is worked on at a time: mark the others pending or done", joinInts(active))
	}
	return c, nil
}

func joinInts(n []int) string {
	s := make([]string, len(n))
	for i, v := range n {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

func (t *tool) Preview(raw json.RawMessage) string {
	c, err := Parse(raw)
	if err != nil {
		return "plan (bad arguments)"
	}
	return "plan: " + Summary(c)
}

func (t *tool) Run(ctx context.Context, raw json.RawMessage, progress func(string)) tools.Result {
	c, err := Parse(raw)
	if err != nil {
		return tools.ErrorResult("%v", err)
	}
	if t.c.Save == nil {
		return tools.ErrorResult("plan: this zut cannot keep a plan here")
	}
	if err := t.c.Save(c); err != nil {
		return tools.ErrorResult("plan: the plan was not saved: %v", err)
	}
	msg := "Plan updated: " + Summary(c) + "."
	if len(c.Items) == 0 {
		msg = "Plan cleared."
	}
	return tools.TextResult(msg + "\n" + Text(c)).WithDetails(c)
}

// Summary counts the items: "5 items: 2 done, 1 in progress, 2 pending".
func Summary(c session.Checklist) string {
	if len(c.Items) == 0 {
		return "no items"
	}
	var done, active, pending int
	for _, it := range c.Items {
		switch it.Status {
		case session.ItemDone:
			done++
		case session.ItemInProgress:
			active++
		default:
			pending++
		}
	}
	var parts []string
	if done > 0 {
		parts = append(parts, fmt.Sprintf("%d done", done))
	}
	if active > 0 {
		parts = append(parts, fmt.Sprintf("%d in progress", active))
	}
	if pending > 0 {
		parts = append(parts, fmt.Sprintf("%d pending", pending))
	}
	return tools.Plural(len(c.Items), "item") + ": " + strings.Join(parts, ", ")
}

// mark is the marker of Text for a status ("" for an unknown one).
func mark(status string) string {
	switch status {
	case session.ItemDone:
		return "[x]"
	case session.ItemInProgress:
		return "[>]"
	case session.ItemPending:
		return "[ ]"
	}
	return ""
}

// Text renders the plan as plain lines: "[x] done item", "[>] the active
// one", "[ ] pending", then the note.
func Text(c session.Checklist) string {
	var b strings.Builder
	for _, it := range c.Items {
		fmt.Fprintf(&b, "%s %s\n", mark(it.Status), it.Text)
	}
	if c.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", c.Note)
	}
	return strings.TrimRight(b.String(), "\n")
}
