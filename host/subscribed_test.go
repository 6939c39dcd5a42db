package host

import (
	"testing"

	"github.com/zut-go/zut/proto"
)

// TestSubscribed: a host is Subscribed (and Emit sends) from the first
// subscription to an event on, not for interceptions alone.
func TestSubscribed(t *testing.T) {
	h := &Host{}
	e := newExtension(h, Entry{Manifest: &Manifest{Name: "x"}})
	steps := []struct {
		sub  proto.Subscribe
		want bool
	}{
		{proto.Subscribe{}, false},
		{proto.Subscribe{Intercept: []string{"tool_call"}}, false},
		{proto.Subscribe{Events: []string{"turn_end"}}, true},
		{proto.Subscribe{}, true},
	}
	for i, s := range steps {
		e.subscribe(&s.sub)
		if got := h.Subscribed(); got != s.want {
			t.Errorf("after subscription %d (%+v): Subscribed() = %v, want %v", i, s.sub, got, s.want)
		}
	}
}
