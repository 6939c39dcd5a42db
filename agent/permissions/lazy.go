package permissions

import "sync"

// lazy is a value made on first use. A package variable of it starts as
// zeros and needs no initialiser, unlike a map literal, a regexp or a
// sync.OnceValue at package level, which every zut process would run
// (even zut --version).
type lazy[T any] struct {
	once sync.Once
	v    T
}

// get returns the value, calling make the first time. A large make is
// best a named function: a function literal is copied into every caller
// that the function calling get is inlined into.
func (l *lazy[T]) get(make func() T) T {
	l.once.Do(func() { l.v = make() })
	return l.v
}
