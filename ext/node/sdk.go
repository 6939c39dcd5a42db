// Package node holds zut's SDK for extensions written for Node.js:
// zut_ext.mjs, one ES module without npm dependencies (Node 18 or later),
// and its TypeScript declarations, zut_ext.d.mts (what tsc looks for beside
// an .mjs module under the node16, nodenext and bundler resolutions) and
// the same text as zut_ext.d.ts (for editors and older settings), which an
// extension copies next to its program. The package embeds the module and
// its declarations (once: both names are the same text) so that the
// scaffolder (zut ext init) can write them into a new extension, and its
// tests run the SDK in real Node processes under the real host.
// docs/sdk-node.md documents the API.
package node

import (
	"bytes"
	_ "embed"
)

// The names under which an extension carries the SDK: programs import
// "./zut_ext.mjs"; tsc and editors read the declarations beside it.
const (
	FileName            = "zut_ext.mjs"
	TypesFileName       = "zut_ext.d.ts"
	ModuleTypesFileName = "zut_ext.d.mts"
)

// The binary holds the declarations once: zut_ext.d.mts is the same text
// as zut_ext.d.ts (TestModuleTypesSame).
var (
	//go:embed zut_ext.mjs
	source []byte
	//go:embed zut_ext.d.ts
	types []byte
)

// Source returns the module's contents. The caller owns the slice.
func Source() []byte { return bytes.Clone(source) }

// Types returns the TypeScript declarations of the module, as
// zut_ext.d.ts. The caller owns the slice.
func Types() []byte { return bytes.Clone(types) }

// ModuleTypes returns the same declarations as zut_ext.d.mts, the file tsc
// resolves for "./zut_ext.mjs" under node16, nodenext and bundler. The
// caller owns the slice.
func ModuleTypes() []byte { return bytes.Clone(types) }
