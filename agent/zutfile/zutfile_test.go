package zutfile

import (
	"errors"
	"flag"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

var errNotFound = errors.New("not found")
