package host

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// This is the host's copy of zut's regular-file reader (provider has the
// other; host may not import it): extension manifests and the trust
// store are read through it, so that a FIFO, a device or a directory
// planted as extension.json gets an error at once instead of hanging zut,
// and a huge file is refused by its size.

// MaxManifest bounds extension.json: 1 MiB.
const MaxManifest = 1 << 20

// errNotRegular and errTooLarge are wrapped by readRegular.
var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("file too large")
)

// readRegular reads the regular file at path (symlinks followed), at
// most limit bytes. It opens non-blocking and checks with fstat before
// reading, so a FIFO never blocks. Errors name what the file is or the
// limit; a missing file wraps fs.ErrNotExist.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("it is %s, %w; replace it with a regular file", fileKind(fi.Mode()), errNotRegular)
	}
	tooLarge := fmt.Errorf("%w: larger than the %d MiB limit; shorten it", errTooLarge, limit>>20)
	if fi.Size() > limit {
		return nil, tooLarge
	}
	if err := clearNonblock(f); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge
	}
	return data, nil
}

// fileKind names what a file that is not a regular one is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// secretEnv is the host's fallback rule for variables kept from
// extensions when Config.Env is nil: any *_API_KEY, *_APIKEY or
// *_AUTH_TOKEN and ZUTCORE_RPC_TOKEN. The app passes the full rule
// (provider.ChildEnv) in Config.Env; this only keeps a host started
// without it from handing keys over.
func secretEnv(name string) bool {
	n := strings.ToUpper(name)
	return strings.HasSuffix(n, "_API_KEY") || strings.HasSuffix(n, "_APIKEY") ||
		strings.HasSuffix(n, "_AUTH_TOKEN") || n == "ZUTCORE_RPC_TOKEN"
}

// childEnv is the environment of an extension: cfg's when set, else this
// process's without secretEnv variables.
func childEnv(env []string) []string {
	if env != nil {
		return env
	}
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !secretEnv(k) {
			out = append(out, kv)
		}
	}
	return out
}
