package tools

import "testing"

// SetScopeSwapHook sets scopeSwapHook for the tests of package tools_test
// (the ast tool's, which lives in a package above this one) until t ends.
func SetScopeSwapHook(t testing.TB, f func(abs string)) {
	scopeSwapHook = f
	t.Cleanup(func() { scopeSwapHook = nil })
}
