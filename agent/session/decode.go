package session

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
	"unicode/utf8"

	"github.com/zut-go/zut/provider"
)

// Entries are decoded in two ways. Message and ext_state entries as zut
// writes them, the bulk of every file, take a fast path: a small scanner
// reads the envelope fields and keeps a message as raw JSON, decoded only
// when something reads it (after a compaction, only the kept tail ever
// is). Everything else, and any line the fast path does not recognise,
// goes through encoding/json. Both paths run only on lines json.Valid
// accepts, and both give the same Entry (FuzzDecodeEntry checks this).

// decodeEntry decodes one valid JSON line into e. raw is the undecoded
// message of a fast-path message entry, nil otherwise. prev is the ID of
// the entry before, shared rather than copied when it is the parent.
func decodeEntry(line []byte, e *Entry, prev string) (raw json.RawMessage, err error) {
	if raw, ok := fastEntry(line, e, prev); ok {
		return raw, nil
	}
	*e = Entry{}
	return nil, json.Unmarshal(line, e)
}

// fastEntry decodes a message or ext_state entry made only of the fields
// zut writes for those, with no escapes in its short strings. ok is false
// otherwise, and e may then hold partial data.
func fastEntry(line []byte, e *Entry, prev string) (raw json.RawMessage, ok bool) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return nil, false
	}
	i = skipSpace(line, i+1)
	for i < len(line) && line[i] != '}' {
		key, ok := plainString(line, i)
		if !ok {
			return nil, false
		}
		i = skipSpace(line, i+len(key)+2)
		if i >= len(line) || line[i] != ':' {
			return nil, false
		}
		vs := skipSpace(line, i+1)
		ve := skipValue(line, vs)
		if ve <= vs || ve > len(line) {
			return nil, false
		}
		val := line[vs:ve]
		switch string(key) {
		case "message":
			if val[0] != '{' {
				return nil, false
			}
			raw = val
		case "state":
			e.State = append(json.RawMessage(nil), val...)
		case "usage":
			if string(val) == "null" {
				e.Usage = nil
				break
			}
			if e.Usage == nil {
				e.Usage = new(provider.Usage)
			}
			if json.Unmarshal(val, e.Usage) != nil {
				return nil, false
			}
		case "time":
			if e.Time.UnmarshalJSON(val) != nil {
				return nil, false
			}
		case "type", "id", "parent_id", "provider", "model", "stop", "extension":
			s, ok := plainString(val, 0)
			if !ok || len(s) != len(val)-2 {
				return nil, false
			}
			setField(e, string(key), s, prev)
		default:
			return nil, false
		}
		i = skipSpace(line, ve)
		if i < len(line) && line[i] == ',' {
			i = skipSpace(line, i+1)
		} else if i >= len(line) || line[i] != '}' {
			return nil, false
		}
	}
	if i >= len(line) || skipSpace(line, i+1) != len(line) {
		return nil, false
	}
	switch {
	case e.Type == TypeMessage && raw != nil:
		return bytes.Clone(raw), true
	case e.Type == TypeExtState && raw == nil:
		return nil, true
	}
	return nil, false
}

// setField stores one short string field.
func setField(e *Entry, key string, s []byte, prev string) {
	switch key {
	case "type":
		switch string(s) { // constants, so that no string is allocated
		case string(TypeMessage):
			e.Type = TypeMessage
		case string(TypeExtState):
			e.Type = TypeExtState
		default:
			e.Type = Type(s)
		}
	case "id":
		e.ID = string(s)
	case "parent_id":
		if string(s) == prev {
			e.ParentID = prev
		} else {
			e.ParentID = string(s)
		}
	case "provider":
		e.Provider = string(s)
	case "model":
		e.Model = string(s)
	case "stop":
		e.Stop = provider.StopReason(s)
	case "extension":
		e.Extension = string(s)
	}
}

// plainString returns the contents of the JSON string at b[i] when it has
// no escapes.
func plainString(b []byte, i int) ([]byte, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, false
	}
	ascii := true
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '\\':
			return nil, false
		case c == '"':
			// encoding/json turns invalid UTF-8 into U+FFFD; leave such
			// strings to it so both paths agree.
			if !ascii && !utf8.Valid(b[i+1:j]) {
				return nil, false
			}
			return b[i+1 : j], true
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value starting at b[i]; b is known
// to be valid JSON.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b) + 1 // unbalanced: not valid after all
	}
	for j := i; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
	}
	return len(b)
}

// skipString returns the index after the closing quote of the string at b[i].
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b) + 1
}

// message returns entry i's message, decoding and keeping it on first use.
// A message that is valid JSON but not a message (edited by hand) reads as
// a note saying so, so that the rest of the conversation stays usable.
func (s *Session) message(i int32) *provider.Message {
	e := s.entries.at(i)
	if e.Message == nil && int(i) < len(s.raw) && s.raw[i] != nil {
		m := new(provider.Message)
		if err := json.Unmarshal(s.raw[i], m); err != nil {
			role := m.Role
			if role == "" {
				role = provider.RoleUser
			}
			m = &provider.Message{Role: role, Content: []provider.Block{
				provider.TextBlock("[zut: this message could not be read from the session file]")}}
		}
		e.Message = m
		s.raw[i] = nil
	}
	return e.Message
}

// parallelDecodeMin is how many undecoded messages make decoding them on
// every CPU worth the goroutines.
const parallelDecodeMin = 4096

// decodeMessages decodes the messages of entries idx that are still raw,
// on all CPUs when there are many (the first Messages of a large session
// that was never compacted). The caller holds s.mu; each goroutine writes
// only its own entries.
func (s *Session) decodeMessages(idx []int32) {
	var todo []int32
	for _, i := range idx {
		if e := s.entries.at(i); e.Type == TypeMessage && e.Message == nil && int(i) < len(s.raw) && s.raw[i] != nil {
			todo = append(todo, i)
		}
	}
	n := runtime.NumCPU()
	if len(todo) < parallelDecodeMin || n < 2 {
		return // message decodes them one by one as they are read
	}
	var wg sync.WaitGroup
	chunk := (len(todo) + n - 1) / n
	for start := 0; start < len(todo); start += chunk {
		part := todo[start:min(start+chunk, len(todo))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, i := range part {
				s.message(i)
			}
		}()
	}
	wg.Wait()
}
