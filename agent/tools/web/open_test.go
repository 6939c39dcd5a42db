package web

import (
	"strings"
	"testing"
	"time"
)

func TestOpenGolden(t *testing.T) {
	w, _, _ := site(t, nil)
	tests := []struct {
		name    string
		args    map[string]any
		wantErr bool
	}{
		{"open_guide", map[string]any{"url": "http://docs.test/docs/guide.html"}, false},
		{"open_latin1", map[string]any{"url": "http://docs.test/latin1.html"}, false},
		{"open_https_to_http", map[string]any{"url": "docs.test/latin1.html"}, true},
		{"open_redirect", map[string]any{"url": "http://docs.test/chain"}, false},
		{"open_json", map[string]any{"url": "http://docs.test/data.json", "line": 20}, false},
		{"open_markdown", map[string]any{"url": "http://docs.test/readme.md"}, false},
		{"open_octet_text", map[string]any{"url": "http://docs.test/octet"}, false},
		{"open_untyped_html", map[string]any{"url": "http://docs.test/no-type"}, false},
		{"open_js_only", map[string]any{"url": "http://docs.test/js-only"}, false},
		{"open_404", map[string]any{"url": "http://docs.test/nothing-here"}, true},
		{"open_pdf", map[string]any{"url": "http://docs.test/doc.pdf"}, true},
		{"open_pdf_as_text", map[string]any{"url": "http://docs.test/octet-pdf"}, true},
		{"open_image", map[string]any{"url": "http://docs.test/logo.png"}, true},
		{"open_private_redirect", map[string]any{"url": "http://docs.test/to-private"}, true},
		{"open_metadata_redirect", map[string]any{"url": "http://docs.test/to-metadata"}, true},
		{"open_port_redirect", map[string]any{"url": "http://docs.test/to-port"}, true},
		{"open_ftp_redirect", map[string]any{"url": "http://docs.test/to-ftp"}, true},
		{"open_redirect_loop", map[string]any{"url": "http://docs.test/loop"}, true},
		{"open_private_name", map[string]any{"url": "http://internal.test/"}, true},
		{"open_mapped_private", map[string]any{"url": "http://mapped.test/"}, true},
		{"open_private_ip", map[string]any{"url": "http://127.0.0.1/admin"}, true},
		{"open_unknown_host", map[string]any{"url": "https://nope.test/"}, true},
		{"open_credentials", map[string]any{"url": "http://user:pw@docs.test/"}, true},
		{"open_mailto", map[string]any{"url": "mailto:ana@example.com"}, true},
		{"open_nothing", map[string]any{}, true},
		{"open_bad_line", map[string]any{"url": "http://docs.test/readme.md", "line": 0}, true},
		{"open_unknown_arg", map[string]any{"url": "http://docs.test/readme.md", "page": 2}, true},
		{"open_bad_ref", map[string]any{"ref_id": "page-3"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, w, "web_open", tc.args)
			if r.IsError != tc.wantErr {
				t.Errorf("web_open(%v).IsError = %v, want %v:\n%s", tc.args, r.IsError, tc.wantErr, r.Text())
			}
			golden(t, tc.name, r.Text())
		})
	}
}

func TestOpenDetails(t *testing.T) {
	w, _, _ := site(t, nil)
	r := call(t, w, "web_open", map[string]any{"url": "http://docs.test/docs/guide.html"})
	var d PageDetails
	details(t, r, &d)
	if d.RefID != "r1:http://docs.test/docs/guide.html" || d.Title != "Rate limits | Acme API Guide" || d.ContentType != "text/html" ||
		d.Status != 200 || d.From != 1 || d.To != d.Lines || d.Links != 3 || len(d.Head) != 5 || d.Head[0] != "# Rate limits" {
		t.Errorf("web_open Details = %+v", d)
	}
}

// TestOpenPaging reads a long text file page by page through its ref.
func TestOpenPaging(t *testing.T) {
	w, n, _ := site(t, nil)
	first := call(t, w, "web_open", map[string]any{"url": "http://docs.test/long.txt"})
	var d PageDetails
	details(t, first, &d)
	if d.From != 1 || d.To != 200 || d.Lines != 450 {
		t.Fatalf("first page = lines %d-%d of %d, want 1-200 of 450", d.From, d.To, d.Lines)
	}
	if !strings.Contains(first.Text(), `to read on, call web_open with ref_id "r1:http://docs.test/long.txt" and line 201`) {
		t.Errorf("first page does not say how to read on:\n%s", tail(first.Text()))
	}
	dials := len(n.dialed())
	second := call(t, w, "web_open", map[string]any{"ref_id": d.RefID, "line": 201})
	golden(t, "open_long_201", second.Text())
	if got := len(n.dialed()); got != dials {
		t.Errorf("reading on fetched the page again (%d dials, want %d)", got, dials)
	}
	past := call(t, w, "web_open", map[string]any{"ref_id": d.RefID, "line": 451})
	if !past.IsError || !strings.Contains(past.Text(), "line 451 is past the end of r1:http://docs.test/long.txt, which has 450 lines") {
		t.Errorf("line past the end = %q", past.Text())
	}
}

func TestOpenBigBody(t *testing.T) {
	w, _, _ := site(t, nil)
	r := call(t, w, "web_open", map[string]any{"url": "http://docs.test/big"})
	text := r.Text()
	if r.IsError || !strings.Contains(text, "title: Big page") ||
		!strings.Contains(text, "note: the body is larger than 5.0 MiB (the limit); only that much was read") ||
		!strings.Contains(text, "(text/html, over 5.0 MiB)") {
		t.Errorf("web_open of a 6 MiB page =\n%s", head(text))
	}
	if strings.Contains(text, "the end") {
		t.Errorf("web_open of a 6 MiB page shows its end, past the limit")
	}
}

func TestOpenSlowServer(t *testing.T) {
	w, _, _ := site(t, func(c *Config) { c.Timeout = 300 * time.Millisecond })
	for _, path := range []string{"/slow", "/slow-body"} {
		r := call(t, w, "web_open", map[string]any{"url": "http://docs.test" + path})
		want := "web_open: http://docs.test" + path + ": no complete answer within 300ms"
		if !r.IsError || !strings.HasPrefix(r.Text(), want) {
			t.Errorf("web_open(%s) = %q, want an error starting %q", path, r.Text(), want)
		}
	}
}

func TestOpenMixedAnswer(t *testing.T) {
	w, n, _ := site(t, nil)
	r := call(t, w, "web_open", map[string]any{"url": "http://mixed.test/readme.md"})
	if r.IsError {
		t.Fatalf("web_open(mixed.test) failed: %s", r.Text())
	}
	for _, d := range n.dialed() {
		if d != "93.184.215.14:80" {
			t.Errorf("dialled %s; only the public address of mixed.test may be", d)
		}
	}
}

func TestOpenHeaders(t *testing.T) {
	w, _, _ := site(t, nil)
	for i := 0; i < 2; i++ { // the second request would carry a cookie
		r := call(t, w, "web_open", map[string]any{"url": "http://docs.test/headers"})
		text := r.Text()
		if !strings.Contains(text, "user-agent: zut/1.2.3") || !strings.Contains(text, "cookie: \n") && !strings.HasSuffix(strings.TrimSpace(text), "authorization:") {
			t.Errorf("request %d headers:\n%s", i+1, text)
		}
		if strings.Contains(text, "s3cr3t") {
			t.Errorf("request %d sent the cookie back:\n%s", i+1, text)
		}
	}
}

func TestFindGolden(t *testing.T) {
	w, _, _ := site(t, nil)
	open := call(t, w, "web_open", map[string]any{"url": "http://docs.test/docs/guide.html"})
	if open.IsError {
		t.Fatal(open.Text())
	}
	ref := "r1:http://docs.test/docs/guide.html"
	tests := []struct {
		name    string
		args    map[string]any
		wantErr bool
	}{
		{"find_retry_after", map[string]any{"ref_id": ref, "pattern": "RETRY-AFTER"}, false},
		{"find_across_lines", map[string]any{"ref_id": ref, "pattern": "how many   seconds to wait"}, false},
		{"find_none", map[string]any{"ref_id": ref, "pattern": "graphql"}, false},
		{"find_long_file", map[string]any{"ref_id": "http://docs.test/long.txt", "pattern": "needle"}, false},
		// A match on the line after another match is marked as a match,
		// not as the first one's context.
		{"find_adjacent", map[string]any{"ref_id": "http://docs.test/adjacent.txt", "pattern": "needle"}, false},
		{"find_empty", map[string]any{"ref_id": ref, "pattern": "  "}, true},
		{"find_no_ref", map[string]any{"pattern": "x"}, true},
		{"find_bare_ref", map[string]any{"ref_id": "r1", "pattern": "x"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, w, "web_find", tc.args)
			if r.IsError != tc.wantErr {
				t.Errorf("web_find(%v).IsError = %v, want %v:\n%s", tc.args, r.IsError, tc.wantErr, r.Text())
			}
			golden(t, tc.name, r.Text())
		})
	}
	r := call(t, w, "web_find", map[string]any{"ref_id": ref, "pattern": "retry-after"})
	var d FindDetails
	details(t, r, &d)
	if d.Total != 3 || len(d.Matches) != 3 || d.Matches[0].Line == 0 || d.RefID != ref {
		t.Errorf("web_find Details = %+v", d)
	}
}

func TestClick(t *testing.T) {
	w, _, _ := site(t, nil)
	call(t, w, "web_open", map[string]any{"url": "http://docs.test/docs/guide.html"})
	ref := "r1:http://docs.test/docs/guide.html"
	r := call(t, w, "web_click", map[string]any{"ref_id": ref, "id": 2})
	golden(t, "click_errors", r.Text())
	var d PageDetails
	details(t, r, &d)
	if d.Clicked == nil || d.Clicked.ID != 2 || d.Clicked.From != ref || d.Clicked.Text != "Errors" || d.Title != "Errors | Acme API Guide" {
		t.Errorf("web_click Details = %+v, clicked %+v", d, d.Clicked)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"ref_id": ref, "id": 9}, "web_click: " + ref + " has no link 9; its links are numbered 1-3"},
		{map[string]any{"ref_id": ref}, "web_click: id is required"},
		{map[string]any{"ref_id": ref, "id": 1.5}, "web_click: id must be a link number of at least 1, got 1.5"},
		{map[string]any{"ref_id": "http://docs.test/long.txt", "id": 1}, "web_click: r3:http://docs.test/long.txt has no links to follow"},
	} {
		r := call(t, w, "web_click", tc.args)
		if !r.IsError || r.Text() != tc.want {
			t.Errorf("web_click(%v) = %q, want the error %q", tc.args, r.Text(), tc.want)
		}
	}
}

func head(s string) string {
	if len(s) > 600 {
		return s[:600] + "…"
	}
	return s
}

func tail(s string) string {
	if len(s) > 400 {
		return "…" + s[len(s)-400:]
	}
	return s
}
