package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// ModelListing is one row of zut --list-models.
type ModelListing struct {
	Provider      string  `json:"provider"`
	ID            string  `json:"id"`
	Wire          Wire    `json:"wire"`
	ContextWindow int     `json:"context_window,omitempty"`
	MaxOutput     int     `json:"max_output,omitempty"`
	Prices        *Prices `json:"prices,omitempty"` // nil when unknown or free
	Reasoning     string  `json:"reasoning,omitempty"`
	Images        bool    `json:"images,omitempty"`
	Default       bool    `json:"default,omitempty"` // the provider's default model
	// Ready says whether zut can use the model now: "key" (a key is set),
	// "sub" (a subscription sign-in is saved), "local" (the local server
	// answered), or "" (no key).
	Ready string `json:"ready,omitempty"`
}

// ListModels writes the known models for --list-models: the catalog with
// models.json applied, plus the models of local servers that answer. With
// o.Provider set only that provider is listed. asJSON writes a JSON array
// instead of a table.
func ListModels(ctx context.Context, o Options, w io.Writer, asJSON bool) error {
	rows, err := Listings(ctx, o)
	if err != nil {
		return err
	}
	if asJSON {
		if rows == nil {
			rows = []ModelListing{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROVIDER\tMODEL\tCONTEXT\tMAX OUT\tIN $/M\tOUT $/M\tREASONING\tREADY")
	for _, r := range rows {
		id := r.ID
		if r.Default {
			id += " *"
		}
		in, out := "?", "?"
		if r.Prices != nil {
			in, out = price(r.Prices.Input), price(r.Prices.Output)
		} else if r.Ready == "local" {
			in, out = "0", "0"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Provider, id, tokens(r.ContextWindow), tokens(r.MaxOutput),
			in, out, dash(r.Reasoning), dash(r.Ready))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, "\n* default model of its provider. READY: key = a key is set, sub = signed in with a subscription, local = the server answered.\nUse: zut --model provider/model. Prices are USD per million tokens; override them in models.json.")
	return err
}

// Listings returns the rows ListModels prints.
func Listings(ctx context.Context, o Options) ([]ModelListing, error) {
	if o.BaseURL != "" {
		if err := CheckBaseURL(o.BaseURL, "--base-url"); err != nil {
			return nil, err
		}
	}
	cat, err := loadCatalog(o.Home)
	if err != nil {
		return nil, err
	}
	auth, _ := readAuth(o.Home)
	var only *ProviderInfo
	if o.Provider != "" {
		p, ok := cat.provider(o.Provider)
		if !ok {
			return nil, fmt.Errorf("unknown provider %q — use one of %s", o.Provider, strings.Join(cat.names(), ", "))
		}
		only = p
	}
	var rows []ModelListing
	for i := range cat.providers {
		p := &cat.providers[i]
		if only != nil && p.Name != only.Name {
			continue
		}
		ready := ""
		if k, _ := keyFromEnv(p, &o); k != "" || auth[p.Name].key() != "" || (o.APIKey != "" && only != nil) {
			ready = "key"
		} else if signInOf(auth, p.Name, nil) != nil {
			ready = "sub"
		}
		if p.Local {
			base := p.BaseURL
			if o.BaseURL != "" && only != nil {
				base = o.BaseURL
			} else {
				for _, env := range p.BaseURLEnv {
					if v := o.getenv(env); v != "" {
						base = hostURL(v, p.BaseURL)
						break
					}
				}
			}
			ids, err := o.probe(ctx, *p, base)
			if err != nil {
				if only != nil {
					return nil, fmt.Errorf("%s: %v — start the server or pass --base-url", p.Name, err)
				}
				continue
			}
			for _, id := range ids {
				row := ModelListing{Provider: p.Name, ID: id, Wire: p.Wire, Ready: "local"}
				if md, ok := cat.model(p.Name, id); ok {
					row = listing(md, p, "local")
				}
				rows = append(rows, row)
			}
			continue
		}
		for _, md := range cat.models {
			if md.Provider == p.Name {
				rows = append(rows, listing(md, p, ready))
			}
		}
	}
	return rows, nil
}

func listing(md Model, p *ProviderInfo, ready string) ModelListing {
	r := ModelListing{Provider: md.Provider, ID: md.ID, Wire: md.Wire, ContextWindow: md.ContextWindow, MaxOutput: md.MaxOutput,
		Reasoning: md.Reasoning, Images: md.Images, Default: md.ID == p.DefaultModel, Ready: ready}
	if md.Prices.Known() {
		pr := md.Prices
		r.Prices = &pr
	}
	return r
}

// tokens renders a token count as 200K or 1M.
func tokens(n int) string {
	switch {
	case n <= 0:
		return "?"
	case n >= 1000000:
		return strconv.FormatFloat(math.Round(float64(n)/1e5)/10, 'f', -1, 64) + "M"
	case n >= 1000:
		return strconv.Itoa(n/1000) + "K"
	}
	return strconv.Itoa(n)
}

func price(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
