package provider

import "sort"

// LookupProvider finds a provider by name or alias ("kimi", "grok"),
// among the built-in ones and those of home's models.json.
func LookupProvider(home, name string) (ProviderInfo, error) {
	cat, err := loadCatalog(home)
	if err != nil {
		return ProviderInfo{}, err
	}
	p, ok := cat.provider(name)
	if !ok {
		return ProviderInfo{}, &UnknownProviderError{Name: name, Known: cat.names()}
	}
	return *p, nil
}

// Providers lists the built-in providers and those of home's models.json,
// in the order zut tries them.
func Providers(home string) ([]ProviderInfo, error) {
	cat, err := loadCatalog(home)
	if err != nil {
		return nil, err
	}
	return append([]ProviderInfo(nil), cat.providers...), nil
}

// UnknownProviderError is a provider name zut does not know.
type UnknownProviderError struct {
	Name  string
	Known []string
}

func (e *UnknownProviderError) Error() string {
	names := append([]string(nil), e.Known...)
	sort.Strings(names)
	s := "unknown provider " + quote(e.Name) + " — use one of "
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	s += ", or add it to models.json"
	if near := Nearest(e.Name, e.Known); near != "" {
		s = "unknown provider " + quote(e.Name) + " (did you mean " + near + "?) — use one of " + s[len("unknown provider "+quote(e.Name)+" — use one of "):]
	}
	return s
}

func quote(s string) string { return `"` + s + `"` }

// SavedKeys returns the API keys saved in home's auth.json by provider
// name (subscription sign-ins are not keys: SavedCredentials lists them).
// The error says what is wrong with the file.
func SavedKeys(home string) (map[string]string, error) {
	entries, err := readAuth(home)
	out := map[string]string{}
	for name, e := range entries {
		if k := e.key(); k != "" {
			out[name] = k
		}
	}
	return out, err
}

// MaskKey shows the start and end of a key: "sk-ant-…4f2a".
func MaskKey(key string) string {
	if len(key) < 12 {
		return "…" + key[max(len(key)-2, 0):]
	}
	head := min(7, len(key)/3)
	return key[:head] + "…" + key[len(key)-4:]
}

// ExitCode makes an unknown provider a usage error (status 2) where the
// name came from the command line.
func (e *UnknownProviderError) ExitCode() int { return 2 }
