package bot

import (
	"context"
	"testing"
)

// TestQueueNext checks the consumer's side of the queue: items in order,
// a wait that a push ends, and the ends: the queue closed and drained, or
// the context done.
func TestQueueNext(t *testing.T) {
	t.Run("in order, then closed", func(t *testing.T) {
		q := newQueue[int]()
		q.push(1)
		q.push(2)
		q.close()
		for _, want := range []int{1, 2} {
			if v, ok := q.next(context.Background()); !ok || v != want {
				t.Fatalf("next() = %d, %v; want %d, true", v, ok, want)
			}
		}
		if v, ok := q.next(context.Background()); ok {
			t.Errorf("next() on a closed, drained queue = %d, true; want false", v)
		}
	})
	t.Run("waits for a push", func(t *testing.T) {
		q := newQueue[string]()
		got := make(chan string, 1)
		go func() {
			v, _ := q.next(context.Background())
			got <- v
		}()
		q.push("late")
		if v := <-got; v != "late" {
			t.Errorf("next() = %q, want %q", v, "late")
		}
	})
	t.Run("context done", func(t *testing.T) {
		q := newQueue[int]()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan bool, 1)
		go func() {
			_, ok := q.next(ctx)
			done <- ok
		}()
		cancel()
		if <-done {
			t.Error("next() after cancel = true, want false")
		}
		q.push(7)
		if _, ok := q.next(ctx); ok {
			t.Error("next() with a done context and an item = true, want false")
		}
	})
}
