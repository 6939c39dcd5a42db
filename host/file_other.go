//go:build !unix

package host

import "io/fs"

// fileOwner is unknown outside Unix.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }
