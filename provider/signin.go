package provider

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Bearer is the token a request carries in Authorization: Bearer, with
// what the provider wants beside it.
type Bearer struct {
	Token string
	// AccountID is the ChatGPT account (chatgpt-account-id).
	AccountID string
}

// BearerSource supplies the bearer token of a subscription sign-in. It is
// safe for concurrent use.
type BearerSource interface {
	// Bearer returns a token that has not expired, refreshing it first
	// when it is about to.
	Bearer(ctx context.Context) (Bearer, error)
	// Renew refreshes the token after the API refused rejected (a 401),
	// unless another process has saved a newer one meanwhile.
	Renew(ctx context.Context, rejected string) (Bearer, error)
}

// renewAhead is how long before its expiry an access token is renewed.
const renewAhead = 2 * time.Minute

// SignIn is the BearerSource of a provider signed in through auth.json.
// A refresh happens under an exclusive lock on auth.json.lock beside
// auth.json, so two zut processes never refresh at once: the second one
// re-reads the file once it holds the lock and uses the token the first
// saved. The refreshed credential is written atomically (mode 0600).
type SignIn struct {
	home  string
	oauth *OAuth

	mu  sync.Mutex
	cur authEntry
}

// NewSignIn is the sign-in of o.Provider saved in home's auth.json.
func NewSignIn(home string, o *OAuth) *SignIn {
	s := &SignIn{home: home, oauth: o}
	if entries, err := readAuth(home); err == nil {
		s.cur = entries[o.Provider]
	}
	return s
}

func (e authEntry) bearer() Bearer { return Bearer{Token: e.Access, AccountID: e.AccountID} }

// fresh reports whether the entry's access token may be used now. An
// access token of unknown expiry is used until the API refuses it.
func (e authEntry) fresh(now time.Time) bool {
	if e.Access == "" {
		return false
	}
	return e.Expires == 0 || now.Add(renewAhead).Before(time.UnixMilli(e.Expires))
}

// Bearer implements BearerSource.
func (s *SignIn) Bearer(ctx context.Context) (Bearer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur.oauth() && s.cur.fresh(time.Now()) {
		return s.cur.bearer(), nil
	}
	return s.renew(ctx, "")
}

// Renew implements BearerSource.
func (s *SignIn) Renew(ctx context.Context, rejected string) (Bearer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.renew(ctx, rejected)
}

// renew refreshes under the file lock; s.mu is held.
func (s *SignIn) renew(ctx context.Context, rejected string) (Bearer, error) {
	o := s.oauth
	unlock, err := lockAuth(ctx, s.home, 2*o.timeout()+10*time.Second)
	if err != nil {
		return Bearer{}, fmt.Errorf("%s sign-in: %w", o.Title, err)
	}
	defer unlock()
	entries, err := readAuth(s.home)
	if err != nil {
		return Bearer{}, fmt.Errorf("%s sign-in: %w", o.Title, err)
	}
	e, ok := entries[o.Provider]
	if !ok || !e.oauth() {
		return Bearer{}, fmt.Errorf("%s sign-in: %s holds no sign-in for %s any more — sign in again with %s", o.Title, AuthPath(s.home), o.Provider, o.Login)
	}
	// Another process may have refreshed while this one waited.
	if e.Access != "" && e.Access != rejected && (rejected != "" || e.fresh(time.Now())) {
		s.cur = e
		return e.bearer(), nil
	}
	if e.Refresh == "" {
		return Bearer{}, fmt.Errorf("%s sign-in: the saved sign-in has expired and holds no refresh token — sign in again with %s", o.Title, o.Login)
	}
	c, err := o.Refresh(ctx, e.Refresh)
	if err != nil {
		return Bearer{}, err
	}
	if c.AccountID == "" {
		c.AccountID = e.AccountID
	}
	if c.Account == "" {
		c.Account = e.Account
	}
	ne := entryOf(c)
	err = updateAuth(s.home, "save the refreshed "+o.Title+" sign-in", func(m map[string]authEntry) error {
		m[o.Provider] = ne
		return nil
	})
	if err != nil {
		return Bearer{}, err
	}
	s.cur = ne
	return ne.bearer(), nil
}

func entryOf(c *OAuthCredential) authEntry {
	e := authEntry{Type: "oauth", Access: c.Access, Refresh: c.Refresh, AccountID: c.AccountID, Account: c.Account}
	if !c.Expires.IsZero() {
		e.Expires = c.Expires.UnixMilli()
	}
	return e
}

// SaveOAuth stores a sign-in for provider in home's auth.json (mode
// 0600, replaced atomically, under the lock refreshes take), replacing
// an API key saved for the same provider.
func SaveOAuth(ctx context.Context, home, provider string, c *OAuthCredential) error {
	unlock, err := lockAuth(ctx, home, time.Minute)
	if err != nil {
		return fmt.Errorf("save the sign-in: %w", err)
	}
	defer unlock()
	return updateAuth(home, "save the sign-in", func(m map[string]authEntry) error {
		m[provider] = entryOf(c)
		return nil
	})
}

// RemoveSignIn deletes the sign-in of provider from home's auth.json and
// returns it (nil when there was none), so that it can be revoked.
func RemoveSignIn(ctx context.Context, home, provider string) (*OAuthCredential, error) {
	unlock, err := lockAuth(ctx, home, time.Minute)
	if err != nil {
		return nil, fmt.Errorf("remove the sign-in: %w", err)
	}
	defer unlock()
	var out *OAuthCredential
	err = updateAuth(home, "remove the sign-in", func(m map[string]authEntry) error {
		e, ok := m[provider]
		if !ok || !e.oauth() {
			return nil
		}
		out = &OAuthCredential{Access: e.Access, Refresh: e.Refresh, AccountID: e.AccountID, Account: e.Account}
		delete(m, provider)
		return nil
	})
	return out, err
}
