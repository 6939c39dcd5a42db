package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// legacyTransport is the HTTP+SSE transport of protocol 2024-11-05, kept
// for older servers: a GET opens an event stream whose first event,
// "endpoint", names the URL every message is POSTed to; the server's
// messages all arrive on the stream.
type legacyTransport struct {
	*httpBase
	endpoint *url.URL
	once     sync.Once
	stop     context.CancelFunc // ends the stream's context (set by connectLegacy)
}

func (t *legacyTransport) kind() string { return "sse" }
func (t *legacyTransport) ready(string) {}
func (t *legacyTransport) reset()       {}

// connectLegacy opens the event stream and waits (bounded by ctx) for the
// endpoint event.
func connectLegacy(ctx context.Context, b *httpBase) (*legacyTransport, error) {
	t := &legacyTransport{httpBase: b}
	// The stream lives as long as the transport; until the endpoint event
	// came, ctx can end it too.
	sctx, scancel := context.WithCancel(t.ctx)
	t.stop = scancel
	unhook := context.AfterFunc(ctx, scancel)
	defer unhook()
	resp, err := t.do(sctx, http.MethodGet, t.url, nil, http.Header{"Accept": {"text/event-stream"}})
	if err != nil {
		t.close()
		return nil, fmt.Errorf("open the event stream: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.close()
		return nil, fmt.Errorf("open the event stream: %w", httpFailure(resp))
	}
	if mediaType(resp) != "text/event-stream" {
		drain(resp)
		t.close()
		return nil, fmt.Errorf("open the event stream: the server answered with Content-Type %q, not text/event-stream", resp.Header.Get("Content-Type"))
	}
	dec := newSSEDecoder(resp.Body, MaxMessage)
	endpoint := make(chan error, 1)
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer resp.Body.Close()
		found := false
		for {
			ev, err := dec.next()
			if err != nil {
				var tooLong *TooLongError
				switch {
				case !found:
					endpoint <- fmt.Errorf("the event stream ended before the endpoint event: %v", err)
				case errors.As(err, &tooLong):
					t.sink.gone(fmt.Errorf("it sent a message longer than %d MiB, so zut disconnected it", tooLong.Limit>>20))
				case t.ctx.Err() == nil:
					t.sink.gone(errors.New("the server closed its event stream"))
				}
				return
			}
			switch {
			case ev.Event == "endpoint" && !found:
				u, err := t.url.Parse(strings.TrimSpace(string(ev.Data)))
				if err == nil && !sameOrigin(u, t.url) {
					err = fmt.Errorf("it names another origin (%s)", u.Host)
				}
				if err != nil {
					endpoint <- fmt.Errorf("unusable endpoint event %q: %v", ev.Data, err)
					return
				}
				t.endpoint = u
				found = true
				endpoint <- nil
			case (ev.Event == "" || ev.Event == "message") && found && len(bytes.TrimSpace(ev.Data)) > 0:
				t.sink.deliver(ev.Data)
			}
		}
	}()
	select {
	case err := <-endpoint:
		if err != nil {
			t.close()
			return nil, err
		}
		t.log.printf("HTTP+SSE endpoint is %s", t.endpoint.Path)
		return t, nil
	case <-ctx.Done():
		t.close()
		return nil, fmt.Errorf("open the event stream: no endpoint event: %w", ctx.Err())
	}
}

func (t *legacyTransport) send(ctx context.Context, m outgoing) error {
	hdr := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	resp, err := t.do(ctx, http.MethodPost, t.endpoint, m.data, hdr)
	if err != nil {
		return err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return httpFailure(resp)
	}
	drain(resp)
	return nil
}

func (t *legacyTransport) close() error {
	t.once.Do(func() {
		if t.stop != nil {
			t.stop()
		}
		t.cancel()
		t.wg.Wait()
		t.client.CloseIdleConnections()
	})
	return nil
}
