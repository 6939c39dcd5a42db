package lsp

import (
	"fmt"
	"net/url"
	"path/filepath"
)

// fileURI turns an absolute path into a file:// URI, escaping what needs
// escaping ("/a b/c.go" is "file:///a%20b/c.go").
func fileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// uriPath turns a file:// URI back into a clean absolute path.
func uriPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("bad document URI %q: %v", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("document URI %q is not a file:// URI", uri)
	}
	if u.Path == "" || (u.Host != "" && u.Host != "localhost") {
		return "", fmt.Errorf("document URI %q names no local file", uri)
	}
	return filepath.Clean(filepath.FromSlash(u.Path)), nil
}
