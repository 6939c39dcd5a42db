package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHistoryPersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "zut", "history.jsonl")
	h, err := OpenHistory(path, 3)
	if err != nil || h.Len() != 0 {
		t.Fatalf("OpenHistory(missing) = %d entries, %v; want empty, nil", h.Len(), err)
	}
	for _, s := range []string{"one", "two\nlines", "two\nlines", "", "quote \" and \\"} {
		if err := h.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	h2, err := OpenHistory(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(entries(h2), "|")
	if want := "one|two\nlines|quote \" and \\"; got != want {
		t.Errorf("reloaded history = %q, want %q", got, want)
	}
	// Adding past twice the size compacts the file to the size.
	for _, s := range []string{"a", "b", "c"} {
		h2.Add(s)
	}
	b, _ := os.ReadFile(path)
	if n := strings.Count(string(b), "\n"); n != 3 {
		t.Errorf("history file has %d lines after compaction, want 3:\n%s", n, b)
	}
	h3, _ := OpenHistory(path, 3)
	if got := strings.Join(entries(h3), "|"); got != "a|b|c" {
		t.Errorf("history after compaction = %q, want a|b|c", got)
	}
}

func TestHistoryBadLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	os.WriteFile(path, []byte("\"ok\"\nnot json\n42\n\"\"\n\"fine\"\n"), 0o600)
	h, err := OpenHistory(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(entries(h), "|"); got != "ok|fine" {
		t.Errorf("history with bad lines = %q, want ok|fine", got)
	}
}

func TestHistoryUnwritable(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o600)
	h, _ := OpenHistory(filepath.Join(blocker, "history.jsonl"), 0)
	e := &Editor{History: h}
	e.SetText("keep me")
	v, err := e.Submit()
	if v != "keep me" || err == nil {
		t.Errorf("Submit with an unwritable history = %q, %v; want the text and an error", v, err)
	}
	if h.Len() != 1 {
		t.Errorf("entry not kept in memory after a write error")
	}
}

func entries(h *History) []string {
	var out []string
	for i := range h.Len() {
		out = append(out, h.Entry(i))
	}
	return out
}
