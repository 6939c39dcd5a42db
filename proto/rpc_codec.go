package proto

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// RPCError is a command line that could not be decoded. The line was
// skipped; the reader stays usable. ID and Type are the line's "id" and
// "type" members when they could be read, so that the error response can
// echo them. Error returns the text for the response's "error" member.
type RPCError struct {
	ID      json.RawMessage // nil when absent or unusable
	Type    string          // "" when absent or not a string
	Unknown bool            // Type names no command (the error is "unknown command")
	Msg     string
}

func (e *RPCError) Error() string { return e.Msg }

// errUnknownCommand is the error text for a type outside the catalog;
// clients of zut's RPC mode compare it as is.
const errUnknownCommand = "unknown command"

// DecodeRPCCommand decodes one command line (without its newline). On
// failure it returns an *RPCError.
func DecodeRPCCommand(line []byte) (RPCCommand, error) {
	if typ, ok := peekType(line); ok {
		if f := NewRPCCommand(string(typ)); f != nil {
			if err := json.Unmarshal(line, f); err == nil {
				c := f.(RPCCommand)
				if err := checkID(c.CommandID()); err != nil {
					return nil, &RPCError{Type: string(typ), Msg: err.Error()}
				}
				return c, nil
			}
		}
	}
	return decodeSlow(line)
}

// decodeSlow decodes line with encoding/json alone, for lines the fast
// path could not take (an escaped "type", an error to explain).
func decodeSlow(line []byte) (RPCCommand, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(line, &probe); err != nil {
		if !json.Valid(line) {
			return nil, &RPCError{Msg: fmt.Sprintf("malformed JSON: %s; send one JSON object per line", syntaxText(err))}
		}
		return nil, &RPCError{Msg: `a command must be a JSON object such as {"type":"ping"}`}
	}
	e := &RPCError{}
	if id, ok := probe["id"]; ok {
		if err := checkID(id); err != nil {
			e.Msg = err.Error()
		} else if !isNull(id) {
			e.ID = id
		}
	}
	raw, ok := probe["type"]
	var typ string
	switch {
	case !ok:
		if e.Msg == "" {
			e.Msg = `missing "type": every command names its type, as in {"type":"ping"}`
		}
		return nil, e
	case json.Unmarshal(raw, &typ) != nil:
		if e.Msg == "" {
			e.Msg = `"type" must be a string, as in {"type":"ping"}`
		}
		return nil, e
	}
	e.Type = typ
	if e.Msg != "" {
		return nil, e
	}
	f := NewRPCCommand(typ)
	if f == nil {
		e.Unknown = true
		e.Msg = errUnknownCommand
		return nil, e
	}
	if err := json.Unmarshal(line, f); err != nil {
		e.Msg = fieldText(typ, err)
		return nil, e
	}
	return f.(RPCCommand), nil
}

// checkID accepts an absent or null id, a string and a number.
func checkID(id json.RawMessage) error {
	t := bytes.TrimSpace(id)
	if len(t) == 0 || isNull(t) {
		return nil
	}
	switch c := t[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return nil
	}
	return errors.New(`"id" must be a string or a number; zut echoes it in the response`)
}

func isNull(b json.RawMessage) bool { return string(bytes.TrimSpace(b)) == "null" }

// syntaxText shortens encoding/json's syntax errors.
func syntaxText(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%v (at byte %d)", syn, syn.Offset)
	}
	return err.Error()
}

// fieldText says which member of a command has the wrong type.
func fieldText(typ string, err error) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) && ute.Field != "" {
		return fmt.Sprintf("%s: member %q must be %s, not %s", typ, ute.Field, kindName(ute.Type.Kind().String()), ute.Value)
	}
	return fmt.Sprintf("%s: %v", typ, err)
}

func kindName(k string) string {
	switch k {
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "bool":
		return "a boolean"
	case "ptr", "int", "int64", "float64":
		return "a number"
	}
	return k
}
