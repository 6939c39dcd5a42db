package proto

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// keyCase is one line of testdata/keys.txt, the table the Go, Python and
// Node implementations of the key names all check.
type keyCase struct {
	In    string  `json:"in"`
	Key   *string `json:"key"`
	Error *string `json:"error"`
}

// readKeyCases reads testdata/keys.txt: one JSON object a line, "#"
// comments and blank lines skipped.
func readKeyCases(t testing.TB) []keyCase {
	t.Helper()
	f, err := os.Open("testdata/keys.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []keyCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var c keyCase
		if err := json.Unmarshal([]byte(line), &c); err != nil || (c.Key == nil) == (c.Error == nil) {
			t.Fatalf("testdata/keys.txt:%d: want {\"in\": ..., \"key\" or \"error\": ...}: %q (%v)", n, line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("testdata/keys.txt has %d cases, want the whole table", len(cases))
	}
	return cases
}

func TestCanonicalKey(t *testing.T) {
	for _, tc := range readKeyCases(t) {
		t.Run(tc.In, func(t *testing.T) {
			got, err := CanonicalKey(tc.In)
			if tc.Key != nil {
				if err != nil || got != *tc.Key {
					t.Fatalf("CanonicalKey(%q) = %q, %v, want %q", tc.In, got, err, *tc.Key)
				}
				// Canonical names are their own canonical form.
				if again, err := CanonicalKey(got); err != nil || again != got {
					t.Errorf("CanonicalKey(%q) = %q, %v, want it unchanged", got, again, err)
				}
				return
			}
			var ke *KeyError
			if !errors.As(err, &ke) || ke.Reason != *tc.Error || ke.Key != tc.In || got != "" {
				t.Fatalf("CanonicalKey(%q) = %q, %v, want the error %q", tc.In, got, err, *tc.Error)
			}
			if want := fmt.Sprintf("key %q: %s", tc.In, *tc.Error); err.Error() != want {
				t.Errorf("CanonicalKey(%q) error = %q, want %q", tc.In, err.Error(), want)
			}
		})
	}
}

// FuzzCanonicalKey: any text gets a canonical name or a reason, never a
// panic, and a canonical name is its own canonical form.
func FuzzCanonicalKey(f *testing.F) {
	for _, s := range []string{"ctrl+alt+p", "Alt + Ctrl + P", "shift+a", "ctrl++", "+", "++", "ctrl+", "\xff", "shift+1", "f13", "ᾈ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := CanonicalKey(s)
		if err != nil {
			var ke *KeyError
			if !errors.As(err, &ke) || ke.Reason == "" || got != "" {
				t.Fatalf("CanonicalKey(%q) = %q, %v, want a *KeyError with a reason", s, got, err)
			}
			return
		}
		if again, err := CanonicalKey(got); err != nil || again != got {
			t.Fatalf("CanonicalKey(%q) = %q; CanonicalKey(%q) = %q, %v, want it unchanged", s, got, got, again, err)
		}
	})
}
