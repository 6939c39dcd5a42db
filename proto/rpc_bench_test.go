package proto

import (
	"encoding/base64"
	"strings"
	"testing"
)

func BenchmarkDecodeRPCCommand(b *testing.B) {
	image := base64.StdEncoding.EncodeToString(make([]byte, 1<<20))
	cases := []struct {
		name string
		line string
	}{
		{"ping", `{"type":"ping","id":17}`},
		{"prompt", `{"type":"prompt","id":"p1","message":"` + strings.Repeat("explain the parser ", 20) + `"}`},
		{"prompt-1MiB-image", `{"type":"prompt","id":2,"message":"what is this?","images":[{"mime_type":"image/png","data":"` + image + `"}]}`},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			line := []byte(c.line)
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeRPCCommand(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
