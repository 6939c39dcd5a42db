package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// ModelsFile is the shape of $ZUT_HOME/models.json: custom providers and
// models, or overrides of built-in ones (an entry with a known name or id
// replaces the fields it sets).
//
//	{
//	  "providers": {
//	    "lab": {"base_url": "http://gpu:8000/v1", "wire": "chat",
//	            "api_key_env": ["LAB_KEY"], "default_model": "qwen3-coder"}
//	  },
//	  "models": [
//	    {"provider": "lab", "id": "qwen3-coder", "context_window": 262144,
//	     "max_output": 32768, "prices": {"input": 0.2, "output": 0.8},
//	     "reasoning": "effort"}
//	  ]
//	}
type ModelsFile struct {
	Providers map[string]ProviderFile `json:"providers,omitempty"`
	Models    []Model                 `json:"models,omitempty"`
}

// ProviderFile is one provider entry of models.json. Unset fields keep the
// built-in values (for a known provider) or the defaults.
type ProviderFile struct {
	Wire         string      `json:"wire,omitempty"`
	BaseURL      string      `json:"base_url,omitempty"`
	APIKeyEnv    stringList  `json:"api_key_env,omitempty"`
	BaseURLEnv   stringList  `json:"base_url_env,omitempty"`
	DefaultModel string      `json:"default_model,omitempty"`
	Local        *bool       `json:"local,omitempty"`
	Quirks       *ChatQuirks `json:"quirks,omitempty"`
}

// stringList accepts a JSON string or array of strings.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*l = stringList{s}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err != nil {
		return errors.New("want a string or a list of strings")
	}
	*l = ss
	return nil
}

// catalog is the built-in catalog merged with models.json.
type catalog struct {
	providers []ProviderInfo
	models    []Model
}

// loadCatalog merges $home/models.json (when home is set and the file
// exists) into the built-in catalog.
func loadCatalog(home string) (*catalog, error) {
	c := &catalog{providers: BuiltinProviders(), models: BuiltinModels()}
	if home == "" {
		return c, nil
	}
	path := filepath.Join(home, "models.json")
	data, err := ReadRegular(path, MaxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	var f ModelsFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("read %s: %v — fix the file (see docs/providers.md for its format)", path, err)
	}
	if err := c.merge(f); err != nil {
		return nil, fmt.Errorf("read %s: %v", path, err)
	}
	return c, nil
}

func (c *catalog) merge(f ModelsFile) error {
	for name, pf := range f.Providers {
		if name == "" || strings.ContainsAny(name, "/ ") {
			return fmt.Errorf("provider name %q: use letters, digits and dashes", name)
		}
		p, ok := c.provider(name)
		if !ok {
			c.providers = append(c.providers, ProviderInfo{Name: name, Wire: WireChat})
			p = &c.providers[len(c.providers)-1]
		}
		if pf.Wire != "" {
			w, err := ParseWire(pf.Wire)
			if err != nil {
				return fmt.Errorf("provider %q: %v", name, err)
			}
			p.Wire = w
		}
		if pf.BaseURL != "" {
			p.BaseURL = pf.BaseURL
		}
		if pf.APIKeyEnv != nil {
			p.KeyEnv = append([]string(nil), pf.APIKeyEnv...)
		}
		if pf.BaseURLEnv != nil {
			p.BaseURLEnv = append([]string(nil), pf.BaseURLEnv...)
		}
		if pf.DefaultModel != "" {
			p.DefaultModel = pf.DefaultModel
		}
		if pf.Local != nil {
			p.Local = *pf.Local
		}
		if pf.Quirks != nil {
			p.Quirks = *pf.Quirks
		}
		if p.BaseURL == "" {
			return fmt.Errorf("provider %q: base_url is required", name)
		}
	}
	for _, md := range f.Models {
		if md.Provider == "" || md.ID == "" {
			return fmt.Errorf("model %q: provider and id are required", md.ID)
		}
		p, ok := c.provider(md.Provider)
		if !ok {
			return fmt.Errorf("model %q: unknown provider %q (add it under \"providers\")", md.ID, md.Provider)
		}
		md.Provider = p.Name
		if md.Wire == "" {
			md.Wire = p.Wire
		} else if w, err := ParseWire(string(md.Wire)); err != nil {
			return fmt.Errorf("model %q: %v", md.ID, err)
		} else {
			md.Wire = w
		}
		switch md.Reasoning {
		case "", ReasoningBudget, ReasoningAdaptive, ReasoningAdaptiveOnly, ReasoningEffort, ReasoningToggle, ReasoningAlways:
		default:
			return fmt.Errorf("model %q: unknown reasoning %q: use budget, adaptive, adaptive-only, effort, toggle or always", md.ID, md.Reasoning)
		}
		replaced := false
		for i := range c.models {
			if c.models[i].Provider == md.Provider && c.models[i].ID == md.ID {
				c.models[i], replaced = md, true
			}
		}
		if !replaced {
			c.models = append(c.models, md)
		}
	}
	return nil
}

// provider finds a provider by name or alias.
func (c *catalog) provider(name string) (*ProviderInfo, bool) {
	name = strings.ToLower(name)
	if a, ok := providerAlias(name); ok {
		name = a
	}
	for i := range c.providers {
		if c.providers[i].Name == name {
			return &c.providers[i], true
		}
	}
	return nil, false
}

// model finds a catalog model.
func (c *catalog) model(provider, id string) (Model, bool) {
	for _, md := range c.models {
		if md.Provider == provider && md.ID == id {
			return md, true
		}
	}
	return Model{}, false
}

// withID returns the catalog models with this id, in catalog order.
func (c *catalog) withID(id string) []Model {
	var out []Model
	for _, md := range c.models {
		if md.ID == id {
			out = append(out, md)
		}
	}
	return out
}

func (c *catalog) names() []string {
	var out []string
	for _, p := range c.providers {
		out = append(out, p.Name)
	}
	return out
}
