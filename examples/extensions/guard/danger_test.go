package main

import (
	"encoding/json"
	"testing"
)

func TestDanger(t *testing.T) {
	tests := []struct {
		command string
		refused bool
	}{
		{"rm -rf /", true},
		{"rm -rf /*", true},
		{"rm -fr ~", true},
		{"rm -r -f $HOME", true},
		{"sudo rm -rf /", true},
		{"sudo -u root /bin/rm --recursive --force /", true},
		{"cd /tmp && rm -rf /", true},
		{"echo hi; rm -Rf ~/", true},
		{"rm --no-preserve-root -rf /tmp", true},
		{":(){ :|:& };:", true},
		{"mkfs.ext4 /dev/sda1", true},
		{"dd if=/dev/zero of=/dev/sda bs=1M", true},
		{"cat x > /dev/sda", true},
		{"chmod -R 777 /", true},
		{"rm -rf /tmp/foo", false},
		{"rm -rf ./build", false},
		{"rm -f /", false}, // not recursive: rm refuses a directory anyway
		{"rm -rf build/ ~/project/tmp", false},
		{"echo 'rm -rf /'", false},
		{"dd if=/dev/zero of=/dev/null count=1", false},
		{"ls -la /", false},
		{"git push --force", false},
		{"", false},
	}
	for _, tc := range tests {
		t.Run(tc.command, func(t *testing.T) {
			why := danger(tc.command)
			if (why != "") != tc.refused {
				t.Errorf("danger(%q) = %q, want refused=%v", tc.command, why, tc.refused)
			}
		})
	}
}

func TestSaferCommand(t *testing.T) {
	tests := []struct {
		command, want string
		changed       bool
	}{
		{"git push --force", "git push --force-with-lease", true},
		{"git push -f origin main", "git push --force-with-lease origin main", true},
		{"git push origin main --force && git push --force", "git push origin main --force-with-lease && git push --force-with-lease", true},
		{"git push --force-with-lease", "git push --force-with-lease", false},
		{"git push origin main", "git push origin main", false},
		{"rm -f x", "rm -f x", false},
	}
	for _, tc := range tests {
		t.Run(tc.command, func(t *testing.T) {
			got, changed := saferCommand(tc.command)
			if got != tc.want || changed != tc.changed {
				t.Errorf("saferCommand(%q) = %q, %v; want %q, %v", tc.command, got, changed, tc.want, tc.changed)
			}
		})
	}
}

func TestInterceptKeepsOtherArguments(t *testing.T) {
	tests := []struct {
		name, args, want string
		block            bool
	}{
		{"rewrite keeps timeout", `{"command":"git push -f","timeout":30}`, `{"command":"git push --force-with-lease","timeout":30}`, false},
		{"rewrite keeps unknown members", `{"timeout":5,"command":"git push --force","cwd":"sub"}`, `{"command":"git push --force-with-lease","cwd":"sub","timeout":5}`, false},
		{"untouched", `{"command":"ls","timeout":30}`, ``, false},
		{"not an object", `[1]`, ``, false},
		{"refusal", `{"command":"rm -rf /","timeout":30}`, ``, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := decide(json.RawMessage(tc.args))
			if d.Block != tc.block || string(d.ModifiedArgs) != tc.want {
				t.Errorf("intercept(bash, %s) = %+v (args %s), want block=%v args %s", tc.args, d, d.ModifiedArgs, tc.block, tc.want)
			}
		})
	}
}
