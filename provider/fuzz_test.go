package provider

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecoders feeds arbitrary bodies to every wire's decoder: no panic,
// every tool input valid JSON, and the same result whatever the chunking.
func FuzzDecoders(f *testing.F) {
	files, _ := filepath.Glob("testdata/streams/*.sse")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b, uint8(0), uint16(7))
	}
	wires := []Wire{WireAnthropic, WireChat, WireResponses, WireOllama}
	f.Fuzz(func(t *testing.T, body []byte, wire uint8, split uint16) {
		w := wires[int(wire)%len(wires)]
		evs, msg, err := replay(w, bytes.NewReader(body), "fuzz")
		i := int(split) % (len(body) + 1)
		evs2, msg2, err2 := replay(w, splitReader(body, i), "fuzz")
		a, b := renderResult(evs, msg, err), renderResult(evs2, msg2, err2)
		if !bytes.Equal(a, b) {
			t.Fatalf("wire %s: result differs when split at %d:\n%s\n%s", w, i, a, b)
		}
		for _, bl := range msg.Content {
			if bl.Type == BlockToolUse && !json.Valid(bl.Input) {
				t.Fatalf("tool input %q is not JSON", bl.Input)
			}
		}
		if _, err := json.Marshal(msg); err != nil {
			t.Fatalf("message does not marshal: %v", err)
		}
	})
}

// FuzzFastPaths checks the allocation-free scanners against encoding/json
// on the events they handle: whenever the event is valid JSON both paths
// must produce the same events.
func FuzzFastPaths(f *testing.F) {
	seeds := []string{
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi \"there\"\n\u00e9"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"\ud83d\ude00 \ud800"}}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"x\\y"},"logprobs":null,"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"content":null,"reasoning_content":"think"},"finish_reason":null}],"usage":null}`,
		`{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg","output_index":0,"content_index":0,"delta":"Hello"}`,
		` { "type" : "content_block_delta" , "index" : 0 , "delta" : { "type" : "text_delta" , "text" : "a" } } `,
		// Members the fast path does not read but encoding/json does: a
		// wrong type there makes the event an error, and a repeated object
		// is merged into the first.
		`{"type":"response.output_text.delta","item":"x","output_index":0,"content_index":0,"delta":"a"}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","signature":1}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","thinking":"b"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"delta":{"type":"text_delta"}}`,
		`{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[{"index":0,"delta":{"reasoning":"b"}}]}`,
		// The API's own member order (exactDelta) with what it must refuse.
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\"}}"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":"}}`,
		`{"type":"content_block_delta","index":00,"delta":{"type":"text_delta","text":"a"}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"a\u0000"}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || bytes.ContainsAny(data, "\r\n") {
			return
		}
		bodies := map[Wire][]byte{
			WireAnthropic: append([]byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"m\"}}\n\n"+
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"+
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\"}}\n\n"+
				"event: content_block_delta\ndata: "), append(data, "\n\n"...)...),
			WireChat:      append(append([]byte("data: "), data...), "\n\n"...),
			WireResponses: append(append([]byte("event: response.output_text.delta\ndata: "), data...), "\n\n"...),
		}
		for w, body := range bodies {
			fast, fm, ferr := replaySlow(w, bytes.NewReader(body), "fuzz", false)
			slow, sm, serr := replaySlow(w, bytes.NewReader(body), "fuzz", true)
			a, b := renderResult(fast, fm, ferr), renderResult(slow, sm, serr)
			if !bytes.Equal(a, b) {
				t.Fatalf("%s: fast path differs from encoding/json on %s:\nfast %s\nslow %s", w, data, a, b)
			}
		}
	})
}

func FuzzErrorBody(f *testing.F) {
	for _, s := range []string{
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}`,
		`{"error":{"message":"quota","type":"insufficient_quota","code":"insufficient_quota"}}`,
		`{"error":"model not found"}`, `{"detail":"bad"}`, `<html><title>502</title></html>`, `{"error":{"code":502}}`,
	} {
		f.Add([]byte(s), 429)
	}
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		e := &APIError{Provider: "p", Status: status}
		parseErrorBody(e, body)
		hintFor(e, "set KEY", "m", "http://x")
		_ = e.Error()
		_ = e.retryable()
	})
}

// FuzzAuthFile feeds arbitrary auth.json bytes to its parser: no panic,
// and every entry it accepts is a key, a sign-in or nothing usable, and
// survives a write and a read unchanged.
func FuzzAuthFile(f *testing.F) {
	f.Add([]byte(`{"anthropic": {"api_key": "sk-ant-x"}}`))
	f.Add([]byte(`{"anthropic": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1767225600000}}`))
	f.Add([]byte(`{"openrouter": {"type": "api_key", "key": "k"}, "x": {"type": "oauth", "accountId": "id", "extra": 1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseAuth("auth.json", data)
		if err != nil {
			return
		}
		out, err := json.Marshal(entries)
		if err != nil {
			t.Fatalf("marshal %v: %v", entries, err)
		}
		again, err := parseAuth("auth.json", out)
		if err != nil {
			t.Fatalf("the written file %s does not read back: %v", out, err)
		}
		for name, e := range entries {
			if again[name].key() != e.key() || again[name].oauth() != e.oauth() || again[name].Access != e.Access {
				t.Fatalf("%s: %+v read back as %+v", name, e, again[name])
			}
		}
	})
}

// FuzzTokenClaims feeds arbitrary tokens to the JWT claim reader: no
// panic, whatever the token.
func FuzzTokenClaims(f *testing.F) {
	f.Add("eyJhbGciOiJub25lIn0.eyJlbWFpbCI6ImFAYi5jIn0.sig")
	f.Add("a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, tok string) {
		jwtClaims(tok)
	})
}
