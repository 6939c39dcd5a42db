package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Error codes of JSON-RPC and of the Language Server Protocol.
const (
	ParseError           = -32700
	InvalidRequest       = -32600
	MethodNotFound       = -32601
	InvalidParams        = -32602
	InternalError        = -32603
	ServerNotInitialized = -32002
	UnknownErrorCode     = -32001
	RequestFailed        = -32803
	ServerCancelled      = -32802
	ContentModified      = -32801
	RequestCancelled     = -32800
)

// Error is the error object of a response. A request handler may return
// one to choose the code sent to the peer.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// incoming is any message read from the peer.
type incoming struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *Error          `json:"error"`
}

// kind is what an incoming message is.
type kind int

const (
	kindRequest kind = iota
	kindNotification
	kindResponse
)

// decode parses one message body and classifies it.
func decode(body []byte) (*incoming, kind, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, 0, fmt.Errorf("message is not a JSON object: %q", clip(string(body), 60))
	}
	var m incoming
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, 0, fmt.Errorf("message is not valid JSON-RPC: %v", err)
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method != "" && hasID:
		return &m, kindRequest, nil
	case m.Method != "":
		return &m, kindNotification, nil
	case len(m.ID) > 0 && (m.Result != nil || m.Error != nil):
		return &m, kindResponse, nil
	}
	return nil, 0, errors.New("message is neither a request, a notification nor a response")
}

// request is a call or a notification we send (no ID).
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *int64          `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// response is an answer we send to the peer's request.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// encodeParams marshals params; nil stays absent.
func encodeParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	if raw, ok := params.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(params)
}
