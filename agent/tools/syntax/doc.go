// Package syntax owns the ast tool: structural code search and outlines
// without external tools. Go is parsed exactly by the package's own
// scanner (gotoken.go) and declaration parser (golang.go), which give what
// go/parser and go/ast gave without their code in the binary; Python,
// JavaScript, TypeScript, Rust, C, C++ and Java are outlined by a
// tokenizer that knows each language's declarations, nesting, strings and
// comments, and whose results are marked approximate.
//
// The package is named syntax, not ast, so that it does not clash with
// go/ast. The tool is safe for concurrent use.
package syntax
