package host

import (
	"sort"
	"time"
)

// TrustedProject is one entry of the trust store.
type TrustedProject struct {
	Root    string
	Digest  string
	Allowed time.Time
}

// List returns the trusted projects, sorted by root. An unreadable or
// unsafe store is an error.
func (s *TrustStore) List() ([]TrustedProject, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tf, err := s.read()
	if err != nil {
		return nil, err
	}
	var out []TrustedProject
	for root, e := range tf.Projects {
		out = append(out, TrustedProject{Root: root, Digest: e.Digest, Allowed: e.Allowed})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Root < out[j].Root })
	return out, nil
}
