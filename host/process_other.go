//go:build !unix

package host

// textBusy reports false: other systems have no ETXTBSY to wait out.
func textBusy(err error) bool { return false }
