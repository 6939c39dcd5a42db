// Package python holds zut's SDK for extensions written in Python:
// zut_ext.py, one file of standard-library Python (3.9 or later) that an
// extension copies next to its program. The package embeds the file so
// that the scaffolder (zut ext init) can write it into a new extension,
// and its tests run the SDK in real Python processes under the real host.
// docs/sdk-python.md documents the API.
package python

import (
	"bytes"
	_ "embed"
)

// FileName is the name under which an extension carries the SDK; its
// programs import it as zut_ext.
const FileName = "zut_ext.py"

//go:embed zut_ext.py
var source []byte

// Source returns the SDK file's contents. The caller owns the slice.
func Source() []byte { return bytes.Clone(source) }
