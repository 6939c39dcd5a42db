package jsonrpc

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the frame reader: it must never
// panic, must return only io.EOF, io.ErrUnexpectedEOF or a *FrameError, and
// every body it returns must survive a Write and Read again unchanged.
func FuzzReader(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("Content-Type: x\r\nContent-Length: 1\r\n\r\n1Content-Length: 0\r\n\r\n"))
	f.Add([]byte("\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), 1<<16)
		for {
			body, err := r.Read()
			if err != nil {
				var fe *FrameError
				if err != io.EOF && err != io.ErrUnexpectedEOF && !errors.As(err, &fe) {
					t.Fatalf("Read(%q) error %T %v, want EOF or a *FrameError", data, err, err)
				}
				return
			}
			var buf bytes.Buffer
			Write(&buf, body)
			again, err := NewReader(&buf, 1<<16).Read()
			if err != nil || !bytes.Equal(again, body) {
				t.Fatalf("round trip of %q = %q, %v", body, again, err)
			}
		}
	})
}

// FuzzDecode classifies arbitrary message bodies without panicking.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"x"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"a","result":null}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"n","params":[1]}`))
	f.Add([]byte(`{"id":null,"error":{"code":-32700,"message":"m"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, k, err := decode(data)
		if err != nil {
			return
		}
		if (k == kindRequest || k == kindNotification) && m.Method == "" {
			t.Fatalf("decode(%q) = kind %d without a method", data, k)
		}
	})
}
