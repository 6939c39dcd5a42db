package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
)

const benchDeltas = 10000

// chatBenchBody is a Chat Completions stream of n text deltas.
func chatBenchBody(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-5.4\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" token %d, and \\\"more\\\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n", i)
	}
	b.WriteString("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-5.4\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	return b.Bytes()
}

// responsesBenchBody is a Responses stream of n text deltas.
func responsesBenchBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString("event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"model\":\"gpt-5.4\"}}\n\n")
	for i := range n {
		fmt.Fprintf(&b, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\" token %d\",\"logprobs\":[]}\n\n", i, i)
	}
	b.WriteString("event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n")
	return b.Bytes()
}

// benchDecode measures the whole decode path (SSE, JSON, assembly); allocs/op
// divided by benchDeltas is the cost of one text delta (TestAllocsPerTextDelta
// checks it).
func benchDecode(b *testing.B, w Wire, body []byte) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	r := bytes.NewReader(body)
	asm := &assembler{}
	for b.Loop() {
		r.Reset(body)
		asm.reset()
		dec := newDecoder(w, asm, "bench")
		frames := framesFor(w)(r)
		for !dec.done() {
			name, data, err := frames.next()
			if err != nil {
				b.Fatalf("decode: %v", err)
			}
			if err := dec.frame(name, data); err != nil {
				b.Fatal(err)
			}
			asm.out = asm.out[:0]
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchDeltas), "ns/delta")
}

func BenchmarkDecodeAnthropic(b *testing.B) {
	benchDecode(b, WireAnthropic, sseBenchBody(benchDeltas))
}

func BenchmarkDecodeChat(b *testing.B) {
	benchDecode(b, WireChat, chatBenchBody(benchDeltas))
}

func BenchmarkDecodeResponses(b *testing.B) {
	benchDecode(b, WireResponses, responsesBenchBody(benchDeltas))
}

// TestAllocsPerTextDelta holds the hot path to its budget: a text delta
// event allocates nothing of its own, whole path included (its text is a
// view of the block's, which grows by doubling: under 0.1 allocations a
// delta, amortised).
func TestAllocsPerTextDelta(t *testing.T) {
	if testing.Short() {
		t.Skip("measures allocations")
	}
	for _, tc := range []struct {
		w    Wire
		body func(int) []byte
	}{
		{WireAnthropic, sseBenchBody},
		{WireChat, chatBenchBody},
		{WireResponses, responsesBenchBody},
	} {
		// The difference between two stream lengths cancels the fixed cost.
		perStream := func(n int) float64 {
			body := tc.body(n)
			r := bytes.NewReader(body)
			asm := &assembler{}
			return testing.AllocsPerRun(5, func() {
				r.Reset(body)
				asm.reset()
				dec := newDecoder(tc.w, asm, "bench")
				frames := framesFor(tc.w)(r)
				for !dec.done() {
					name, data, err := frames.next()
					if err != nil {
						t.Fatal(err)
					}
					dec.frame(name, data)
					asm.out = asm.out[:0]
				}
			})
		}
		per := (perStream(2000) - perStream(1000)) / 1000
		t.Logf("%s: %.2f allocations per text delta", tc.w, per)
		if per > 0.1 {
			t.Errorf("%s: %.2f allocations per text delta, want at most 0.1", tc.w, per)
		}
	}
}

// pipeTransport answers every request with a body the benchmark controls.
type pipeTransport struct{ body func() io.ReadCloser }

func (p pipeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: p.body(), Request: r}, nil
}

// BenchmarkFirstEvent measures the time from the first bytes of a response
// being readable to the first text delta leaving Next, through the real
// stream (HTTP client with an in-memory transport).
func BenchmarkFirstEvent(b *testing.B) {
	head := []byte("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"claude\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n")
	cfg := Config{Provider: "anthropic", BaseURL: "http://bench", APIKey: "k",
		HTTPClient: &http.Client{Transport: pipeTransport{body: func() io.ReadCloser { return io.NopCloser(bytes.NewReader(head)) }}}}
	c := &Anthropic{Config: cfg}
	req := &Request{Model: "claude"}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		s, _ := c.Stream(context.Background(), req)
		s.Next() // request
		s.Next() // start: the response headers are in, the body is readable
		b.StartTimer()
		for s.Next() && s.Event().Type != EventTextDelta {
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}

// BenchmarkStream is the whole provider side of a streamed answer of
// benchDeltas text deltas: the HTTP client reading an in-memory body,
// Next and Event, as the agent calls them (compare BenchmarkDecodeAnthropic,
// the decoding alone).
func BenchmarkStream(b *testing.B) {
	body := sseBenchBody(benchDeltas)
	cfg := Config{Provider: "anthropic", BaseURL: "http://bench", APIKey: "k",
		HTTPClient: &http.Client{Transport: pipeTransport{body: func() io.ReadCloser { return io.NopCloser(bytes.NewReader(body)) }}}}
	c := &Anthropic{Config: cfg}
	req := &Request{Model: "claude"}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := c.Stream(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for s.Next() {
			if s.Event().Type == EventTextDelta {
				n++
			}
		}
		if err := s.Err(); err != nil || n != benchDeltas {
			b.Fatalf("stream: %d text deltas, error %v; want %d and none", n, err, benchDeltas)
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchDeltas), "ns/delta")
}
