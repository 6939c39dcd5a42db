package zutfile

import (
	"context"
	"fmt"
	"strings"
)

// splitRepo reads owner/repo[/path].
func splitRepo(src string) (owner, repo, sub string, ok bool) {
	parts := strings.SplitN(src, "/", 3)
	if len(parts) < 2 {
		return "", "", "", false
	}
	owner, repo = parts[0], parts[1]
	if len(parts) == 3 {
		sub = parts[2]
	}
	if !repoName(owner) || !repoName(repo) {
		return "", "", "", false
	}
	if sub != "" && checkRelative(strings.TrimSuffix(sub, "/")) != nil {
		return "", "", "", false
	}
	return owner, repo, strings.TrimSuffix(sub, "/"), true
}

// repoName reports whether s may be a GitHub owner or repository name.
func repoName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 100 || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func loadArchive(src string, o LoadOptions) (*Agent, func() error, error) {
	return nil, func() error { return nil }, fmt.Errorf("load agent %s: archives are not read yet", src)
}

func loadGit(ctx context.Context, src string, o LoadOptions) (*Agent, func() error, error) {
	return nil, func() error { return nil }, fmt.Errorf("load agent %s: repositories are not fetched yet", src)
}
