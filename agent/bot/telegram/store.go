package telegram

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

// Store keeps one bot's state in its own directory (mode 0700): the token
// (file "token", mode 0600), the pairing ("pairing.json") and the update
// offset ("offset"). Files are replaced atomically. The token is written
// nowhere else.
type Store struct {
	Dir string
}

// The files of a store.
const (
	tokenFile   = "token"
	pairingFile = "pairing.json"
	offsetFile  = "offset"
)

// Pairing says who may talk to the bot: the paired user, or nobody yet and
// the hash of the one-time code that pairs the first user who sends it.
type Pairing struct {
	UserID   int64     `json:"user_id,omitempty"`
	UserName string    `json:"user_name,omitempty"`
	PairedAt time.Time `json:"paired_at,omitzero"`
	CodeHash string    `json:"code_hash,omitempty"` // SHA-256 of the normalised code, hex
}

// Paired reports whether a user is paired.
func (p Pairing) Paired() bool { return p.UserID != 0 }

// readSmall reads a regular file of at most max bytes; a missing file is
// (nil, nil).
func (s Store) readSmall(name string, max int64) ([]byte, error) {
	path := filepath.Join(s.Dir, name)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file; remove it and run zut telegram setup again", path)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than a bot's %s file can be; remove it and run zut telegram setup again", path, fi.Size(), name)
	}
	data, err := regular.Read(path, max)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // removed since the Lstat
	}
	return data, err
}

// write replaces the file name with data (mode 0600) through a temporary
// file and a rename.
func (s Store) write(name string, data []byte) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.Dir, "."+name+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(s.Dir, name))
}

// Token returns the stored token; it refuses a token file others can read.
func (s Store) Token() (string, error) {
	b, err := s.readSmall(tokenFile, 1024)
	if err != nil {
		return "", fmt.Errorf("read the bot token: %w", err)
	}
	if b == nil {
		return "", fmt.Errorf("no bot token in %s: run zut telegram setup", s.Dir)
	}
	path := filepath.Join(s.Dir, tokenFile)
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("the token file %s can be read by other users (mode %04o); run chmod 600 %s", path, fi.Mode().Perm(), path)
	}
	return strings.TrimSpace(string(b)), nil
}

// SaveToken stores the token.
func (s Store) SaveToken(token string) error {
	if err := s.write(tokenFile, []byte(token+"\n")); err != nil {
		return fmt.Errorf("store the bot token in %s: %w", s.Dir, err)
	}
	return nil
}

// Pairing returns the stored pairing (zero when there is none).
func (s Store) Pairing() (Pairing, error) {
	var p Pairing
	b, err := s.readSmall(pairingFile, 64<<10)
	if err != nil || b == nil {
		return p, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("read %s: %v; run zut telegram reset and set the bot up again", filepath.Join(s.Dir, pairingFile), err)
	}
	return p, nil
}

// SavePairing stores p.
func (s Store) SavePairing(p Pairing) error {
	b, _ := json.MarshalIndent(p, "", "  ")
	if err := s.write(pairingFile, append(b, '\n')); err != nil {
		return fmt.Errorf("store the pairing in %s: %w", s.Dir, err)
	}
	return nil
}

// Offset returns the next update id to ask for (0: none recorded).
func (s Store) Offset() (int64, error) {
	b, err := s.readSmall(offsetFile, 64)
	if err != nil || b == nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read %s: %q is not an update id", filepath.Join(s.Dir, offsetFile), b)
	}
	return n, nil
}

// SaveOffset records the next update id to ask for.
func (s Store) SaveOffset(n int64) error {
	if err := s.write(offsetFile, []byte(strconv.FormatInt(n, 10)+"\n")); err != nil {
		return fmt.Errorf("record the update offset in %s: %w", s.Dir, err)
	}
	return nil
}

// codeAlphabet has no 0/O, 1/I/L: the code is read and typed by people.
const codeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

// NewPairingCode returns a one-time pairing code (12 characters, about 59
// bits) grouped for reading, and the hash to store.
func NewPairingCode() (code, hash string) {
	var raw strings.Builder
	b := make([]byte, 1)
	for raw.Len() < 12 {
		rand.Read(b)
		if int(b[0]) < 256/len(codeAlphabet)*len(codeAlphabet) { // no modulo bias
			raw.WriteByte(codeAlphabet[int(b[0])%len(codeAlphabet)])
		}
	}
	r := raw.String()
	return r[:4] + "-" + r[4:8] + "-" + r[8:], codeHash(r)
}

// normalizeCode accepts the code as typed: any case, with or without the
// dashes and spaces, after "/start " (a deep link sends that).
func normalizeCode(s string) string {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "/start"); ok {
		s = rest
	}
	s = strings.ToUpper(s)
	return strings.Map(func(r rune) rune {
		if r == '-' || r == ' ' || r == '_' {
			return -1
		}
		return r
	}, s)
}

func codeHash(code string) string {
	sum := sha256.Sum256([]byte(normalizeCode(code)))
	return hex.EncodeToString(sum[:])
}

// PairingFor returns a pending pairing for code: the first user who
// sends it is paired.
func PairingFor(code string) Pairing { return Pairing{CodeHash: codeHash(code)} }

// Matches reports whether text is the pending pairing code.
func (p Pairing) Matches(text string) bool {
	if p.CodeHash == "" || len(text) > 200 {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(codeHash(text)), []byte(p.CodeHash)) == 1
}

// LinkCode is the code as a t.me deep-link parameter.
func LinkCode(code string) string { return normalizeCode(code) }
