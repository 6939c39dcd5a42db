package host

import (
	"errors"
	"os"
	"strings"

	"github.com/zut-go/zut/proto/regular"
)

// MaxManifest bounds extension.json: 1 MiB.
const MaxManifest = 1 << 20

// readRegular reads the regular file at path through proto/regular (no
// FIFO, device, socket or directory; never blocking; at most limit
// bytes). The error is the reason alone, for callers that name the file
// themselves; it wraps the *regular.Error, so fs.ErrNotExist and
// regular.ErrNotRegular still match.
func readRegular(path string, limit int64) ([]byte, error) {
	data, err := regular.Read(path, limit)
	var re *regular.Error
	if errors.As(err, &re) {
		return nil, reason{re}
	}
	return data, err
}

// reason is a *regular.Error printed without its operation and path.
type reason struct{ e *regular.Error }

func (r reason) Error() string { return r.e.Reason() }
func (r reason) Unwrap() error { return r.e }

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
