package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/zut-go/zut/ext"
)

// item is one entry of the list.
type item struct {
	Text string `json:"text"`
	Done bool   `json:"done"`
}

// state is what todos.json and the session state hold.
type state struct {
	Version int    `json:"version"`
	Items   []item `json:"items"`
}

// todo is the list, the panel's cursor, and where the list is saved.
// Handlers run on several goroutines; mu guards everything below it.
type todo struct {
	e *ext.Extension

	mu     sync.Mutex
	items  []item
	cursor int
	open   bool   // the panel is open
	file   string // todos.json in the data directory; "" before hello_ack
}

// load reads todos.json from dataDir, if it exists.
func (t *todo) load(dataDir string) {
	if dataDir == "" {
		return
	}
	file := filepath.Join(dataDir, "todos.json")
	t.mu.Lock()
	t.file = file
	t.mu.Unlock()
	data, err := os.ReadFile(file) //zut:open the example keeps its own list in its data directory
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var s state
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err != nil {
		t.e.Logf("could not read %s, starting with an empty list: %v", file, err)
		return
	}
	t.mu.Lock()
	t.items = s.Items
	t.mu.Unlock()
}

// save writes todos.json through a temporary file, so that a crash never
// leaves half a list.
func (t *todo) save() error {
	t.mu.Lock()
	file := t.file
	t.mu.Unlock()
	if file == "" {
		return nil
	}
	data, err := json.MarshalIndent(t.snapshot(), "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".todos-*.json")
	if err != nil {
		return fmt.Errorf("save todo list: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("save todo list: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save todo list: %w", err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("save todo list: %w", err)
	}
	return nil
}

func (t *todo) snapshot() state {
	t.mu.Lock()
	defer t.mu.Unlock()
	return state{Version: 1, Items: append([]item{}, t.items...)}
}

func (t *todo) add(text string) error {
	text = strings.TrimSpace(text)
	if text == "" {
		return errors.New("todo: nothing to add; give the item's text")
	}
	t.mu.Lock()
	t.items = append(t.items, item{Text: text})
	t.mu.Unlock()
	t.changed()
	return nil
}

func (t *todo) setDone(n int, done bool) error {
	t.mu.Lock()
	if n < 1 || n > len(t.items) {
		t.mu.Unlock()
		return fmt.Errorf("todo: no item %d; the list has %d items", n, len(t.items))
	}
	t.items[n-1].Done = done
	t.mu.Unlock()
	t.changed()
	return nil
}

func (t *todo) remove(n int) error {
	t.mu.Lock()
	if n < 1 || n > len(t.items) {
		t.mu.Unlock()
		return fmt.Errorf("todo: no item %d; the list has %d items", n, len(t.items))
	}
	t.items = append(t.items[:n-1], t.items[n:]...)
	t.cursor = max(0, min(t.cursor, len(t.items)-1))
	t.mu.Unlock()
	t.changed()
	return nil
}

func (t *todo) clearDone() int {
	t.mu.Lock()
	kept := t.items[:0]
	for _, it := range t.items {
		if !it.Done {
			kept = append(kept, it)
		}
	}
	n := len(t.items) - len(kept)
	t.items = kept
	t.cursor = max(0, min(t.cursor, len(t.items)-1))
	t.mu.Unlock()
	t.changed()
	return n
}

// text is the list as the model and the user read it.
func (t *todo) text() string {
	s := t.snapshot()
	if len(s.Items) == 0 {
		return "The todo list is empty."
	}
	var b strings.Builder
	for i, it := range s.Items {
		box := "[ ]"
		if it.Done {
			box = "[x]"
		}
		fmt.Fprintf(&b, "%d. %s %s\n", i+1, box, it.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}
