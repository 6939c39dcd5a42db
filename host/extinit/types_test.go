package extinit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/ext/node"
)

// typeCheck imports the SDK from TypeScript as an author of a typed
// extension does, beside a fresh Node scaffold.
const typeCheck = `import * as zut from './zut_ext.mjs';

const ext = new zut.Extension('typed', '0.1.0');
ext.command('typed', 'say hello', (args: string) => zut.display('typed: ' + args));
ext.tool('shout', 'Shout the text.', { type: 'object' }, (args) => zut.textResult(String(args.text).toUpperCase()));
const version: 2 = zut.PROTOCOL_VERSION;
export { ext, version };
`

// TestNodeTypes runs tsc --noEmit --strict on a fresh `zut ext init --lang
// node` scaffold with a TypeScript file importing ./zut_ext.mjs, under
// each module resolution an author may use (node16, nodenext, bundler),
// and checks that without zut_ext.d.mts the same check fails with TS7016,
// so that the test can fail.
func TestNodeTypes(t *testing.T) {
	tsc := findTSC(t)
	dir := filepath.Join(t.TempDir(), "typed")
	if err := Init(dir, "typed", Options{Lang: LangNode, Command: true, Tool: true}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "check.mts"), []byte(typeCheck), 0o644); err != nil {
		t.Fatal(err)
	}
	// The resolutions only read the scaffold: they run side by side, and
	// the group ends before "without d.mts" removes a file.
	t.Run("resolutions", func(t *testing.T) {
		for _, m := range []struct{ module, resolution string }{{"node16", "node16"}, {"nodenext", "nodenext"}, {"esnext", "bundler"}} {
			t.Run(m.resolution, func(t *testing.T) {
				t.Parallel()
				if out, err := runTSC(tsc, dir, m.module, m.resolution, "check.mts"); err != nil {
					t.Errorf("tsc --module %s --moduleResolution %s check.mts: %v\n%s", m.module, m.resolution, err, out)
				}
			})
		}
	})
	t.Run("without d.mts", func(t *testing.T) {
		if err := os.Remove(filepath.Join(dir, node.ModuleTypesFileName)); err != nil {
			t.Fatal(err)
		}
		out, err := runTSC(tsc, dir, "node16", "node16", "check.mts")
		if err == nil || !strings.Contains(out, "TS7016") {
			t.Errorf("tsc without %s = %v\n%s\nwant error TS7016", node.ModuleTypesFileName, err, out)
		}
	})
}

func runTSC(tsc, dir, module, resolution string, files ...string) (string, error) {
	// --lib es2022,dom (dom for AbortSignal, which Node also has) and
	// --skipDefaultLibCheck keep the default libraries
	// small and unchecked (seconds less on a loaded machine); the SDK's
	// declarations are still checked.
	args := append([]string{"--noEmit", "--strict", "--lib", "es2022,dom", "--skipDefaultLibCheck", "--module", module, "--moduleResolution", resolution}, files...)
	cmd := exec.Command(tsc, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// findTSC returns a TypeScript compiler: $ZUT_TSC (.ci/run installs
// typescript from npm into its cache and sets it), tsc on PATH, or else
// one npm installs into the user's cache directory. The test is skipped,
// saying why, only when npm cannot fetch it (no npm, or no network).
func findTSC(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ZUT_TSC"); p != "" {
		return p
	}
	if p, err := exec.LookPath("tsc"); err == nil {
		return p
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("no tsc: set ZUT_TSC, put tsc on PATH, or install npm so that the test can fetch typescript")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	prefix := filepath.Join(cache, "zut-test", "typescript")
	tsc := filepath.Join(prefix, "node_modules", ".bin", "tsc")
	if _, err := os.Stat(tsc); err == nil {
		return tsc
	}
	cmd := exec.Command(npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--silent", "typescript@5.9.3")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("no tsc, and npm could not install typescript (npm unreachable?): %v\n%s", err, out)
	}
	return tsc
}
