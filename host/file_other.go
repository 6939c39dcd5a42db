//go:build !unix

package host

import (
	"io/fs"
	"os"
)

// openNonblock is 0 where there are no FIFOs to block on.
const openNonblock = 0

func clearNonblock(*os.File) error { return nil }

// fileOwner is unknown outside Unix.
func fileOwner(fs.FileInfo) (int, bool) { return 0, false }
