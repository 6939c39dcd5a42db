package app

import (
	"bytes"
	"context"
	"io"
	"net"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zut-go/zut/agent"
)

// TestNoModelNoTitle: a prompt sent while no model is configured does not
// become the session's title.
func TestNoModelNoTitle(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	home := t.TempDir()
	e := &Env{Stdin: bytes.NewReader(nil), Stdout: io.Discard, Stderr: io.Discard,
		Getenv: func(k string) string { return map[string]string{"ZUT_HOME": home, "HOME": home}[k] }}
	a, err := New(context.Background(), e, Options{NoExtensions: true, Provider: "llamacpp", BaseURL: dead}, Frontend{StartWithoutModel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.ModelError() == nil {
		t.Fatal("a model was configured; the test needs none")
	}
	a.Prompt(context.Background(), agent.Input{Text: "hello, is anyone there?"})
	if got := a.Session().Title(); got != "" {
		t.Errorf("title after a prompt with no model = %q, want none", got)
	}
}

// TestSettingsMembers: SettingsMembers names the members settingsJSON
// reads, and UISettings is among them.
func TestSettingsMembers(t *testing.T) {
	var tags []string
	rt := reflect.TypeOf(settingsJSON{})
	for i := range rt.NumField() {
		tag, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		tags = append(tags, tag)
	}
	if strings.Join(tags, ",") != strings.Join(SettingsMembers, ",") {
		t.Errorf("settingsJSON members = %v, SettingsMembers = %v", tags, SettingsMembers)
	}
	for _, k := range UISettings {
		if !slices.Contains(SettingsMembers, k) {
			t.Errorf("UISettings has %q, which config.json does not hold", k)
		}
	}
}
