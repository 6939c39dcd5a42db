package bot

import (
	"context"
	"sync"
)

// queue is an unbounded FIFO with one consumer: push never blocks, so the
// agent's event callback never waits for the network. Safe for concurrent
// use.
type queue[T any] struct {
	mu     sync.Mutex
	items  []T
	closed bool
	ready  chan struct{} // has a value when items or closed changed
}

func newQueue[T any]() *queue[T] { return &queue[T]{ready: make(chan struct{}, 1)} }

// push adds v; it reports false when the queue is closed.
func (q *queue[T]) push(v T) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	q.items = append(q.items, v)
	q.signal()
	return true
}

func (q *queue[T]) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take removes and returns everything queued; ok is false once the queue
// is closed and empty.
func (q *queue[T]) take() (items []T, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items, q.items = q.items, nil
	return items, len(items) > 0 || !q.closed
}

// close makes push fail; what is queued can still be taken.
func (q *queue[T]) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.signal()
}

// pop removes and returns the first item; ok is false when there is none,
// open is false once the queue is closed and empty.
func (q *queue[T]) pop() (v T, ok, open bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return v, false, !q.closed
	}
	v = q.items[0]
	var zero T
	q.items[0] = zero
	q.items = q.items[1:]
	if len(q.items) > 0 {
		q.signal()
	}
	return v, true, true
}

// next waits for the first item and removes it, for the queue's one
// consumer. ok is false once the queue is closed and empty, or when ctx
// ends (an item taken then is dropped).
func (q *queue[T]) next(ctx context.Context) (v T, ok bool) {
	for {
		v, ok, open := q.pop()
		if !open || ctx.Err() != nil {
			var zero T
			return zero, false
		}
		if ok {
			return v, true
		}
		select {
		case <-q.ready:
		case <-ctx.Done():
			return v, false
		}
	}
}

// clear drops everything queued and returns what it dropped.
func (q *queue[T]) clear() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// len is the number of queued items.
func (q *queue[T]) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}
