package telegramtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Schema is the part of the Bot API description the server checks requests
// against: the shape of telegram/api.json in the conformance fixtures that
// ZUT_CONFORMANCE_DIR names (methods and types, each with fields that have
// types and a required flag).
type Schema struct {
	Version string                `json:"version"`
	Methods map[string]SchemaType `json:"methods"`
	Types   map[string]SchemaType `json:"types"`
}

// SchemaType is a method or an object type.
type SchemaType struct {
	Fields   []SchemaField `json:"fields"`
	Subtypes []string      `json:"subtypes"`
}

// SchemaField is one parameter or object field.
type SchemaField struct {
	Name     string   `json:"name"`
	Types    []string `json:"types"`
	Required bool     `json:"required"`
}

// LoadSchema reads api.json from the conformance directory named by
// ZUT_CONFORMANCE_DIR (its telegram/api.json). It returns the built-in
// schema and false when the variable is unset.
func LoadSchema() (*Schema, bool, error) {
	dir := os.Getenv("ZUT_CONFORMANCE_DIR")
	if dir == "" {
		return BuiltinSchema(), false, nil
	}
	path := filepath.Join(dir, "telegram", "api.json")
	b, err := os.ReadFile(path) //zut:open test support: the test's own files
	if err != nil {
		return nil, false, fmt.Errorf("read the Bot API schema: %w (ZUT_CONFORMANCE_DIR must name the shared fixtures directory)", err)
	}
	var s Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, false, fmt.Errorf("decode the Bot API schema %s: %w", path, err)
	}
	if len(s.Methods) == 0 {
		return nil, false, fmt.Errorf("the Bot API schema %s lists no methods", path)
	}
	return &s, true, nil
}

func f(name string, required bool, types ...string) SchemaField {
	return SchemaField{Name: name, Types: types, Required: required}
}

var replyMarkup = []string{"InlineKeyboardMarkup", "ReplyKeyboardMarkup", "ReplyKeyboardRemove", "ForceReply"}

// BuiltinSchema describes the methods and types zut uses, so that tests
// check requests without the conformance corpus.
func BuiltinSchema() *Schema {
	chat := f("chat_id", true, "Integer", "String")
	return &Schema{
		Version: "built-in subset",
		Methods: map[string]SchemaType{
			"getMe":         {},
			"deleteWebhook": {Fields: []SchemaField{f("drop_pending_updates", false, "Boolean")}},
			"getUpdates": {Fields: []SchemaField{f("offset", false, "Integer"), f("limit", false, "Integer"),
				f("timeout", false, "Integer"), f("allowed_updates", false, "Array of String")}},
			"sendMessage": {Fields: []SchemaField{chat, f("text", true, "String"), f("parse_mode", false, "String"),
				f("entities", false, "Array of MessageEntity"), f("link_preview_options", false, "LinkPreviewOptions"),
				f("disable_notification", false, "Boolean"), f("reply_parameters", false, "ReplyParameters"),
				f("reply_markup", false, replyMarkup...)}},
			"editMessageText": {Fields: []SchemaField{f("chat_id", false, "Integer", "String"), f("message_id", false, "Integer"),
				f("inline_message_id", false, "String"), f("text", false, "String"), f("parse_mode", false, "String"),
				f("entities", false, "Array of MessageEntity"), f("link_preview_options", false, "LinkPreviewOptions"),
				f("reply_markup", false, "InlineKeyboardMarkup")}},
			"editMessageReplyMarkup": {Fields: []SchemaField{f("chat_id", false, "Integer", "String"), f("message_id", false, "Integer"),
				f("inline_message_id", false, "String"), f("reply_markup", false, "InlineKeyboardMarkup")}},
			"deleteMessage":  {Fields: []SchemaField{chat, f("message_id", true, "Integer")}},
			"sendChatAction": {Fields: []SchemaField{chat, f("message_thread_id", false, "Integer"), f("action", true, "String")}},
			"sendDocument": {Fields: []SchemaField{chat, f("document", true, "InputFile", "String"), f("caption", false, "String"),
				f("parse_mode", false, "String"), f("disable_content_type_detection", false, "Boolean"),
				f("reply_parameters", false, "ReplyParameters"), f("reply_markup", false, replyMarkup...)}},
			"sendPhoto": {Fields: []SchemaField{chat, f("photo", true, "InputFile", "String"), f("caption", false, "String"),
				f("parse_mode", false, "String"), f("has_spoiler", false, "Boolean"),
				f("reply_parameters", false, "ReplyParameters"), f("reply_markup", false, replyMarkup...)}},
			"getFile": {Fields: []SchemaField{f("file_id", true, "String")}},
			"answerCallbackQuery": {Fields: []SchemaField{f("callback_query_id", true, "String"), f("text", false, "String"),
				f("show_alert", false, "Boolean"), f("url", false, "String"), f("cache_time", false, "Integer")}},
			"setMyCommands": {Fields: []SchemaField{f("commands", true, "Array of BotCommand"), f("scope", false, "BotCommandScope"),
				f("language_code", false, "String")}},
		},
		Types: map[string]SchemaType{
			"InlineKeyboardMarkup": {Fields: []SchemaField{f("inline_keyboard", true, "Array of Array of InlineKeyboardButton")}},
			"InlineKeyboardButton": {Fields: []SchemaField{f("text", true, "String"), f("url", false, "String"),
				f("callback_data", false, "String"), f("style", false, "String")}},
			"LinkPreviewOptions": {Fields: []SchemaField{f("is_disabled", false, "Boolean"), f("url", false, "String"),
				f("prefer_small_media", false, "Boolean"), f("prefer_large_media", false, "Boolean"), f("show_above_text", false, "Boolean")}},
			"ReplyParameters": {Fields: []SchemaField{f("message_id", true, "Integer"), f("chat_id", false, "Integer", "String"),
				f("allow_sending_without_reply", false, "Boolean")}},
			"MessageEntity": {Fields: []SchemaField{f("type", true, "String"), f("offset", true, "Integer"), f("length", true, "Integer"),
				f("url", false, "String"), f("language", false, "String")}},
			"BotCommand":                     {Fields: []SchemaField{f("command", true, "String"), f("description", true, "String")}},
			"BotCommandScope":                {Subtypes: []string{"BotCommandScopeDefault", "BotCommandScopeAllPrivateChats"}},
			"BotCommandScopeDefault":         {Fields: []SchemaField{f("type", true, "String")}},
			"BotCommandScopeAllPrivateChats": {Fields: []SchemaField{f("type", true, "String")}},
		},
	}
}

// value is a request parameter: a decoded JSON value, or the string of a
// form field, or an uploaded file.
type value struct {
	json any // from a JSON body, or a form field decoded when an object is expected
	form *string
	file bool
}

// checkMethod validates the parameters of one call and returns every
// problem found.
func (s *Schema) checkMethod(method string, params map[string]value) []string {
	m, ok := s.Methods[method]
	if !ok {
		return []string{fmt.Sprintf("unknown method %q (the %s schema has no such method)", method, s.Version)}
	}
	var probs []string
	known := map[string]bool{}
	for _, fd := range m.Fields {
		known[fd.Name] = true
		v, present := params[fd.Name]
		if !present {
			if fd.Required {
				probs = append(probs, fmt.Sprintf("%s: required parameter %q is missing", method, fd.Name))
			}
			continue
		}
		if err := s.checkValue(v, fd.Types); err != "" {
			probs = append(probs, fmt.Sprintf("%s: parameter %q: %s", method, fd.Name, err))
		}
	}
	for _, name := range sortedKeys(params) {
		if !known[name] {
			probs = append(probs, fmt.Sprintf("%s: unknown parameter %q", method, name))
		}
	}
	return probs
}

func (s *Schema) checkValue(v value, types []string) string {
	var errs []string
	for _, t := range types {
		err := s.checkOne(v, t)
		if err == "" {
			return ""
		}
		errs = append(errs, err)
	}
	return strings.Join(errs, "; or ")
}

func (s *Schema) checkOne(v value, t string) string {
	if v.file {
		if t == "InputFile" {
			return ""
		}
		return "an uploaded file where " + t + " is expected"
	}
	if v.form != nil {
		str := *v.form
		switch t {
		case "String":
			return ""
		case "Integer":
			if _, err := strconv.ParseInt(str, 10, 64); err != nil {
				return fmt.Sprintf("%q is not an Integer", str)
			}
			return ""
		case "Float":
			if _, err := strconv.ParseFloat(str, 64); err != nil {
				return fmt.Sprintf("%q is not a Float", str)
			}
			return ""
		case "Boolean":
			if str != "true" && str != "false" {
				return fmt.Sprintf("%q is not a Boolean", str)
			}
			return ""
		case "InputFile":
			return "a form field where an uploaded file is expected"
		}
		var j any
		d := json.NewDecoder(strings.NewReader(str))
		d.UseNumber()
		if err := d.Decode(&j); err != nil {
			return fmt.Sprintf("%s sent as a form field must be JSON: %v", t, err)
		}
		return s.checkJSON(j, t)
	}
	return s.checkJSON(v.json, t)
}

func (s *Schema) checkJSON(j any, t string) string {
	if elem, ok := strings.CutPrefix(t, "Array of "); ok {
		arr, ok := j.([]any)
		if !ok {
			return fmt.Sprintf("%s expected, got %s", t, kind(j))
		}
		for i, e := range arr {
			if err := s.checkJSON(e, elem); err != "" {
				return fmt.Sprintf("element %d: %s", i, err)
			}
		}
		return ""
	}
	switch t {
	case "String":
		if _, ok := j.(string); !ok {
			return "String expected, got " + kind(j)
		}
		return ""
	case "Integer":
		n, ok := j.(json.Number)
		if !ok {
			return "Integer expected, got " + kind(j)
		}
		if _, err := n.Int64(); err != nil {
			return fmt.Sprintf("Integer expected, got %s", n)
		}
		return ""
	case "Float":
		if _, ok := j.(json.Number); !ok {
			return "Float expected, got " + kind(j)
		}
		return ""
	case "Boolean":
		if _, ok := j.(bool); !ok {
			return "Boolean expected, got " + kind(j)
		}
		return ""
	case "InputFile":
		return "InputFile must be uploaded as multipart/form-data"
	}
	ty, ok := s.Types[t]
	if !ok {
		return fmt.Sprintf("type %s is not in the schema", t)
	}
	if len(ty.Subtypes) > 0 {
		return s.checkValue(value{json: j}, ty.Subtypes)
	}
	obj, ok := j.(map[string]any)
	if !ok {
		return fmt.Sprintf("%s object expected, got %s", t, kind(j))
	}
	known := map[string]bool{}
	for _, fd := range ty.Fields {
		known[fd.Name] = true
		fv, present := obj[fd.Name]
		if !present {
			if fd.Required {
				return fmt.Sprintf("%s: required field %q is missing", t, fd.Name)
			}
			continue
		}
		if err := s.checkValue(value{json: fv}, fd.Types); err != "" {
			return fmt.Sprintf("%s.%s: %s", t, fd.Name, err)
		}
	}
	for _, k := range sortedKeys(obj) {
		if !known[k] {
			return fmt.Sprintf("%s has no field %q", t, k)
		}
	}
	return ""
}

func kind(j any) string {
	switch j.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", j)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// normalizeJSON turns Go values into what decoding JSON gives (json.Number,
// []any, map[string]any), for checking values the test built.
func normalizeJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	var out any
	d.Decode(&out)
	return out
}
