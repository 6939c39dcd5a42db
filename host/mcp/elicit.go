package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Elicitation (2025-11-25, client features: elicitation): a server asks
// the user for values through a form the client draws from a flat JSON
// Schema of primitive fields, or sends the user to a URL (URL mode) for
// what must not pass through the client, such as a password.

// ElicitFunc asks the user what req asks and returns the user's answer.
// It runs on a goroutine of its own per request; ctx ends when the server
// cancels the request or the connection ends. An error is sent to the
// server as "refused" (CodeRefused); nil in ClientOptions means zut offers
// no elicitation: the capability is not declared and such requests get
// "method not found".
type ElicitFunc func(ctx context.Context, server string, req ElicitRequest) (ElicitResult, error)

// ElicitRequest is one elicitation/create request.
type ElicitRequest struct {
	Mode    string // "form" or "url"
	Message string
	// Fields are the form's fields in the schema's order (form mode).
	Fields []ElicitField
	// URL and ID are the page to open and the elicitation's id (URL mode).
	URL string
	ID  string
}

// ElicitField is one field of a form: a string (with Format and
// length bounds), a number or integer (with bounds), a boolean, a choice
// of one of Options, or (Type "array") a choice of several.
type ElicitField struct {
	Name        string
	Title       string
	Description string
	Type        string // "string", "number", "integer", "boolean", "array"
	Required    bool
	Format      string         // string: date, date-time, email, uri
	Options     []ElicitOption // enum: the values, with their labels
	Default     any            // the schema's default, or nil
	Min, Max    *float64       // number bounds, or string/array length bounds
}

// ElicitOption is one value of an enum field and its label.
type ElicitOption struct{ Value, Label string }

// ElicitResult is the user's answer: Action "accept", "decline" or
// "cancel"; Content the values of an accepted form.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Defaults are the fields' default values (SEP-1034): what an accepted
// form holds for the fields the user left alone.
func (r ElicitRequest) Defaults() map[string]any {
	m := map[string]any{}
	for _, f := range r.Fields {
		if f.Default != nil {
			m[f.Name] = f.Default
		}
	}
	return m
}

// Complete fills the fields of content the user left out with their
// defaults and checks the result against the form: every required field
// present, each value of its field's type and within its bounds. It
// returns the content to send.
func (r ElicitRequest) Complete(content map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range r.Defaults() {
		out[k] = v
	}
	for k, v := range content {
		out[k] = v
	}
	for _, f := range r.Fields {
		v, ok := out[f.Name]
		if !ok {
			if f.Required {
				return nil, fmt.Errorf("%s is required", f.label())
			}
			continue
		}
		nv, err := f.check(v)
		if err != nil {
			return nil, err
		}
		out[f.Name] = nv
	}
	return out, nil
}

func (f ElicitField) label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// Parse reads a value typed by the user for the field.
func (f ElicitField) Parse(text string) (any, error) {
	text = strings.TrimSpace(text)
	switch f.Type {
	case "boolean":
		switch strings.ToLower(text) {
		case "y", "yes", "true", "1", "on":
			return true, nil
		case "n", "no", "false", "0", "off":
			return false, nil
		}
		return nil, fmt.Errorf("%s: answer yes or no", f.label())
	case "number", "integer":
		var n float64
		if _, err := fmt.Sscan(text, &n); err != nil {
			return nil, fmt.Errorf("%s: %q is not a number", f.label(), text)
		}
		return f.check(n)
	case "array":
		var vals []any
		for _, p := range strings.Split(text, ",") {
			if p = strings.TrimSpace(p); p != "" {
				vals = append(vals, f.optionValue(p))
			}
		}
		return f.check(vals)
	}
	if len(f.Options) > 0 {
		return f.check(f.optionValue(text))
	}
	return f.check(text)
}

// optionValue maps a label or a 1-based number to the option's value.
func (f ElicitField) optionValue(s string) string {
	for i, o := range f.Options {
		if strings.EqualFold(s, o.Label) || s == fmt.Sprint(i+1) {
			return o.Value
		}
	}
	return s
}

func (f ElicitField) check(v any) (any, error) {
	switch f.Type {
	case "boolean":
		if _, ok := v.(bool); !ok {
			return nil, fmt.Errorf("%s must be true or false", f.label())
		}
	case "number", "integer":
		var n float64
		ok := true
		switch x := v.(type) {
		case float64:
			n = x
		case int:
			n = float64(x)
		case int64:
			n = float64(x)
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("%s must be a number", f.label())
		}
		if f.Type == "integer" && n != math.Trunc(n) {
			return nil, fmt.Errorf("%s must be a whole number", f.label())
		}
		if f.Min != nil && n < *f.Min || f.Max != nil && n > *f.Max {
			return nil, fmt.Errorf("%s must be within %s", f.label(), f.bounds())
		}
		if f.Type == "integer" {
			return int64(n), nil
		}
		return n, nil
	case "array":
		list, ok := v.([]any)
		if !ok {
			if ss, isStrings := v.([]string); isStrings {
				for _, s := range ss {
					list = append(list, s)
				}
				ok = true
			}
		}
		if !ok {
			return nil, fmt.Errorf("%s must be a list", f.label())
		}
		for _, x := range list {
			s, isString := x.(string)
			if !isString || !f.allowed(s) {
				return nil, fmt.Errorf("%s: %v is not one of %s", f.label(), x, f.optionList())
			}
		}
		n := float64(len(list))
		if f.Min != nil && n < *f.Min || f.Max != nil && n > *f.Max {
			return nil, fmt.Errorf("%s: choose %s items", f.label(), f.bounds())
		}
		return list, nil
	default: // string
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s must be text", f.label())
		}
		if len(f.Options) > 0 && !f.allowed(s) {
			return nil, fmt.Errorf("%s: %q is not one of %s", f.label(), s, f.optionList())
		}
		n := float64(len([]rune(s)))
		if len(f.Options) == 0 && (f.Min != nil && n < *f.Min || f.Max != nil && n > *f.Max) {
			return nil, fmt.Errorf("%s must be %s characters long", f.label(), f.bounds())
		}
	}
	return v, nil
}

func (f ElicitField) allowed(s string) bool {
	for _, o := range f.Options {
		if o.Value == s {
			return true
		}
	}
	return false
}

func (f ElicitField) optionList() string {
	var vs []string
	for _, o := range f.Options {
		vs = append(vs, fmt.Sprintf("%q", o.Value))
	}
	return strings.Join(vs, ", ")
}

func (f ElicitField) bounds() string {
	switch {
	case f.Min != nil && f.Max != nil:
		return fmt.Sprintf("%g to %g", *f.Min, *f.Max)
	case f.Min != nil:
		return fmt.Sprintf("at least %g", *f.Min)
	case f.Max != nil:
		return fmt.Sprintf("at most %g", *f.Max)
	}
	return "any"
}

// maxElicitFields bounds a form: a server cannot make zut draw more.
const maxElicitFields = 64

// ParseElicit reads the params of elicitation/create (the Client does
// when a server asks; exported for the tests of what answers it).
func ParseElicit(params json.RawMessage) (ElicitRequest, error) { return parseElicit(params) }

// parseElicit reads the params of elicitation/create.
func parseElicit(params json.RawMessage) (ElicitRequest, error) {
	var p struct {
		Mode            string          `json:"mode"`
		Message         string          `json:"message"`
		RequestedSchema json.RawMessage `json:"requestedSchema"`
		URL             string          `json:"url"`
		ElicitationID   string          `json:"elicitationId"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return ElicitRequest{}, fmt.Errorf("unusable params: %v", err)
	}
	req := ElicitRequest{Mode: p.Mode, Message: clipString(p.Message, maxDescription), URL: p.URL, ID: p.ElicitationID}
	switch p.Mode {
	case "url":
		if p.URL == "" || p.ElicitationID == "" {
			return req, errors.New("a URL elicitation needs url and elicitationId")
		}
		if _, err := parseURL(p.URL); err != nil {
			return req, err
		}
		return req, nil
	case "", "form":
		req.Mode = "form"
	default:
		return req, fmt.Errorf("unknown elicitation mode %q", p.Mode)
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(p.RequestedSchema, &s); err != nil || s.Type != "object" {
		return req, errors.New("requestedSchema must be a JSON Schema of type object")
	}
	if len(s.Properties) > maxElicitFields {
		return req, fmt.Errorf("the form has %d fields; zut draws at most %d", len(s.Properties), maxElicitFields)
	}
	order := propertyOrder(p.RequestedSchema)
	for _, name := range order {
		f, err := parseField(name, s.Properties[name])
		if err != nil {
			return req, err
		}
		f.Required = contains(s.Required, name)
		req.Fields = append(req.Fields, f)
	}
	return req, nil
}

// propertyOrder lists the keys of the schema's "properties" in the order
// they are written (a form follows the server's order).
func propertyOrder(schema json.RawMessage) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(schema, &top) != nil {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(top["properties"])))
	var names []string
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		name, _ := t.(string)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(top["properties"], &m)
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
	}
	return names
}

func parseField(name string, raw json.RawMessage) (ElicitField, error) {
	var s struct {
		Type        string   `json:"type"`
		Title       string   `json:"title"`
		Description string   `json:"description"`
		Format      string   `json:"format"`
		Enum        []string `json:"enum"`
		EnumNames   []string `json:"enumNames"`
		OneOf       []struct {
			Const string `json:"const"`
			Title string `json:"title"`
		} `json:"oneOf"`
		Items *struct {
			Enum  []string `json:"enum"`
			AnyOf []struct {
				Const string `json:"const"`
				Title string `json:"title"`
			} `json:"anyOf"`
		} `json:"items"`
		Default   any      `json:"default"`
		Minimum   *float64 `json:"minimum"`
		Maximum   *float64 `json:"maximum"`
		MinLength *float64 `json:"minLength"`
		MaxLength *float64 `json:"maxLength"`
		MinItems  *float64 `json:"minItems"`
		MaxItems  *float64 `json:"maxItems"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return ElicitField{}, fmt.Errorf("field %q: %v", name, err)
	}
	f := ElicitField{Name: name, Title: clipString(s.Title, 200), Description: clipString(s.Description, maxDescription),
		Type: s.Type, Format: s.Format, Default: s.Default}
	switch s.Type {
	case "string":
		f.Min, f.Max = s.MinLength, s.MaxLength
		for i, v := range s.Enum {
			o := ElicitOption{Value: v, Label: v}
			if i < len(s.EnumNames) {
				o.Label = s.EnumNames[i]
			}
			f.Options = append(f.Options, o)
		}
		for _, o := range s.OneOf {
			f.Options = append(f.Options, ElicitOption{Value: o.Const, Label: o.Title})
		}
	case "number", "integer":
		f.Min, f.Max = s.Minimum, s.Maximum
	case "boolean":
	case "array":
		f.Min, f.Max = s.MinItems, s.MaxItems
		if s.Items != nil {
			for _, v := range s.Items.Enum {
				f.Options = append(f.Options, ElicitOption{Value: v, Label: v})
			}
			for _, o := range s.Items.AnyOf {
				f.Options = append(f.Options, ElicitOption{Value: o.Const, Label: o.Title})
			}
		}
		if len(f.Options) == 0 {
			return f, fmt.Errorf("field %q: an array field needs items with enum or anyOf", name)
		}
	default:
		return f, fmt.Errorf("field %q: type %q is not a primitive type (string, number, integer, boolean, or an array of enum values)", name, s.Type)
	}
	if f.Default != nil {
		if v, err := f.check(f.Default); err == nil {
			f.Default = v
		} else {
			f.Default = nil // a default that does not fit its field is ignored
		}
	}
	return f, nil
}

// elicit answers elicitation/create through the ElicitFunc.
func (c *Client) elicit(ctx context.Context, params json.RawMessage) (any, *RPCError) {
	if c.opts.Elicitation == nil {
		c.note("elicitation", "mcp server %q asked the user a question (elicitation/create); nobody can answer here, so zut refused", c.name)
		return nil, &RPCError{Code: CodeMethodNotFound, Message: "zut does not offer elicitation/create here"}
	}
	req, err := parseElicit(params)
	if err != nil {
		c.logf("elicitation refused: %v", err)
		return nil, &RPCError{Code: CodeInvalidParams, Message: "elicitation/create: " + err.Error()}
	}
	res, err := c.opts.Elicitation(ctx, c.name, req)
	if err != nil {
		var rpc *RPCError
		if errors.As(err, &rpc) {
			return nil, rpc
		}
		return nil, &RPCError{Code: CodeRefused, Message: err.Error()}
	}
	switch res.Action {
	case "accept":
		if req.Mode == "url" {
			res.Content = nil
			break
		}
		content, err := req.Complete(res.Content)
		if err != nil {
			return nil, &RPCError{Code: CodeRefused, Message: "the answer does not fit the form: " + err.Error()}
		}
		res.Content = content
	case "decline", "cancel":
		res.Content = nil
	default:
		return nil, &RPCError{Code: CodeInternalError, Message: fmt.Sprintf("zut answered with action %q", res.Action)}
	}
	c.logf("elicitation (%s) answered: %s", req.Mode, res.Action)
	return res, nil
}

// clipString cuts s to at most n bytes on a rune boundary, marking the cut.
func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
