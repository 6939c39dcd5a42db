//go:build !unix

package sandbox

// writeAccess assumes the user may write path: no command is confined
// here anyway.
func writeAccess(path string) bool { return true }
