// Package store keeps records. The text func fake() {} in a comment is not code.
package store

import (
	"context"
	_ "embed"
	"errors"
	f "fmt"
)

// Limits.
const (
	MaxRecords     = 1 << 16 // func nope() in a comment
	minAge, maxAge = 0, 150
)

type Kind int

const (
	KindNone Kind = iota
	KindUser
)

var ErrMissing = errors.New("store: record missing")

var query = `SELECT * FROM t WHERE body = 'func fake() {'`

// Record is one row.
type Record struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Tags []string
	*Meta
	context.Context
	nested struct {
		x int
	}
}

// Store is anything that keeps records.
type Store interface {
	Get(ctx context.Context, id int64) (*Record, error)
	Put(ctx context.Context, r *Record) error
	f.Stringer
}

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

type Handler func(ctx context.Context, r *Record) error

type Alias = Record

type memStore struct{ rows map[int64]*Record }

// New returns an empty store.
func New() *memStore { return &memStore{rows: map[int64]*Record{}} }

func (m *memStore) Get(ctx context.Context, id int64) (*Record, error) {
	r, ok := m.rows[id]
	if !ok {
		return nil, f.Errorf("get %d: %w", id, ErrMissing)
	}
	return r, nil
}

func (m *memStore) Put(
	ctx context.Context, // the call's context
	r *Record,
) error {
	if r == nil {
		return errors.New("put: nil record")
	}
	m.rows[r.ID] = r
	return nil
}

func (m memStore) String() string { return f.Sprintf("%d records", len(m.rows)) }

func (p *Pair[K, V]) Swap() (V, K) { return p.Val, p.Key }

func Map[T, U any](xs []T, fn func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, fn(x))
	}
	return out
}

func init() {
	_ = f.Sprint(query)
	defer func() { recover() }()
}
