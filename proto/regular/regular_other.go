//go:build !unix

package regular

import "os"

// openNonblock is 0 where there are no FIFOs to block on.
const openNonblock = 0

const openDirectory = 0

func clearNonblock(*os.File) error { return nil }
