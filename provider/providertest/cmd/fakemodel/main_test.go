package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zut-go/zut/provider"
)

func TestServeScript(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	os.WriteFile(script, []byte(`[
		{"text": "Let me look.", "tools": [{"id": "call_1", "name": "read", "args": {"path": "a.go"}}]},
		{"thinking": "Short.", "text": "Done.", "usage": {"input": 12, "output": 3}}
	]`), 0o644)
	record := filepath.Join(dir, "requests.jsonl")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-record", record, script}, pw, io.Discard) }()
	url, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url = strings.TrimSpace(url)

	c := &provider.Chat{Config: provider.Config{Provider: "fake", BaseURL: url + "/v1", APIKey: "k"}}
	var texts []string
	var tools int
	for range 2 {
		s, err := c.Stream(ctx, &provider.Request{Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		for s.Next() {
		}
		if err := s.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
		texts = append(texts, s.Message().Text())
		tools += len(s.Message().ToolUses())
		s.Close()
	}
	if strings.Join(texts, "|") != "Let me look.|Done." || tools != 1 {
		t.Errorf("replies = %q with %d tool calls", texts, tools)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run() = %v", err)
	}
	data, _ := os.ReadFile(record)
	if n := strings.Count(string(data), "\n"); n != 2 || !strings.Contains(string(data), `"wire":"chat"`) {
		t.Errorf("record file = %s", data)
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"a", "b"}, {"-nope", "x"}} {
		err := run(context.Background(), args, io.Discard, io.Discard)
		if _, ok := err.(usageError); !ok {
			t.Errorf("run(%q) = %v, want a usage error", args, err)
		}
	}
	if err := run(context.Background(), []string{"/nonexistent/script.json"}, io.Discard, io.Discard); err == nil {
		t.Error("run with a missing script succeeded")
	}
}
