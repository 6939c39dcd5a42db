package tui

import "flag"

// update rewrites the golden files under testdata/ instead of comparing
// against them: go test ./tui -update. It is shared by every test file of
// the package.
var update = flag.Bool("update", false, "rewrite golden files")
