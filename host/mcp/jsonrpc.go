package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// JSON-RPC 2.0 error codes used by zut.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeRefused is what the sampling specification names for a request
	// the user rejected.
	CodeRefused = -1
)

// RPCError is a JSON-RPC error, sent by a server in answer to one of
// zut's requests or by zut in answer to a server's.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("error %d", e.Code)
	}
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

// wire is any incoming JSON-RPC message, before it is classified.
type wire struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *RPCError       `json:"error"`
}

// kind of an incoming message.
type kind int

const (
	kindInvalid kind = iota
	kindRequest
	kindNotification
	kindResponse
)

func (w *wire) kind() kind {
	hasID := len(w.ID) > 0 && !bytes.Equal(w.ID, []byte("null"))
	switch {
	case w.Method != "" && hasID:
		return kindRequest
	case w.Method != "":
		return kindNotification
	case hasID && (w.Result != nil || w.Error != nil):
		return kindResponse
	case w.Error != nil:
		return kindResponse // an error without id: it answers nothing we can find
	}
	return kindInvalid
}

// intID returns the numeric value of an id zut sent (zut's ids are
// integers; a server echoing one as a string is tolerated).
func intID(raw json.RawMessage) (int64, bool) {
	s := string(bytes.TrimSpace(raw))
	if len(s) >= 2 && s[0] == '"' {
		var str string
		if json.Unmarshal([]byte(s), &str) != nil {
			return 0, false
		}
		s = str
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// The outgoing messages, with exactly the members JSON-RPC allows.
type (
	request struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}
	notification struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}
	resultResponse struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}
	errorResponse struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *RPCError       `json:"error"`
	}
)

// encode marshals v as one line of JSON: encoding/json never writes a raw
// newline, so the result is a valid stdio frame once "\n" is added.
func encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode message: %w", err)
	}
	return b, nil
}

// outgoing is one message on its way to a server.
type outgoing struct {
	data   []byte
	id     int64 // the request id, or 0 for notifications and responses
	method string
}
