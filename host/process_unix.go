//go:build unix

package host

import (
	"errors"
	"syscall"
)

// textBusy reports whether err says the program is open for writing
// somewhere (ETXTBSY), which passes.
func textBusy(err error) bool { return errors.Is(err, syscall.ETXTBSY) }
