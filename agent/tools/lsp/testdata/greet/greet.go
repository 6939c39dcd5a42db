// Package greet says hello.
package greet

import "strings"

// Greeter greets people by name.
type Greeter struct {
	Prefix string
}

// Greet returns a greeting for name.
func Greet(name string) string {
	return "hello, " + name
}

// Shout greets name loudly, in the Greeter's way.
func (g Greeter) Shout(name string) string {
	return strings.ToUpper(g.Prefix + Greet(name))
}
