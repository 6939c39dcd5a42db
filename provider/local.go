package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// probeTimeout bounds one question to a local server.
const probeTimeout = 800 * time.Millisecond

// ServerModels asks an OpenAI-compatible server which models it serves:
// Ollama's /api/tags for the ollama wire or provider, else /models under
// the base URL. The IDs are sorted.
func ServerModels(ctx context.Context, client *http.Client, p ProviderInfo, baseURL string) ([]string, error) {
	client = safeClient(client, nil)
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	base := openAIBase(baseURL)
	var ids []string
	var err error
	if p.Name == "ollama" || p.Wire == WireOllama {
		root := strings.TrimSuffix(base, "/v1")
		var tags struct {
			Models []struct {
				Name string `json:"name"`
			} `json:"models"`
		}
		if err = getJSON(ctx, client, root+"/api/tags", &tags); err == nil {
			for _, m := range tags.Models {
				ids = append(ids, m.Name)
			}
			sort.Strings(ids)
			return ids, nil
		}
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err = getJSON(ctx, client, base+"/models", &list); err != nil {
		return nil, err
	}
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	sort.Strings(ids)
	return ids, nil
}

func getJSON(ctx context.Context, client *http.Client, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("list models at %s: %v", RedactURL(u), redactIn(err.Error(), u))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("list models at %s: HTTP %d", RedactURL(u), resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(v); err != nil {
		return fmt.Errorf("list models at %s: %v", RedactURL(u), err)
	}
	return nil
}

// hostURL turns a host setting such as OLLAMA_HOST ("0.0.0.0",
// "127.0.0.1:11434", "http://box:11434") into a base URL, using the
// default URL's scheme and port for missing parts.
func hostURL(v, def string) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return def
	}
	if strings.Contains(v, "://") {
		return v
	}
	d, err := url.Parse(def)
	if err != nil {
		return "http://" + v
	}
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		host, port = v, d.Port()
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return d.Scheme + "://" + net.JoinHostPort(host, port) + d.Path
}
