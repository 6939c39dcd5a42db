package web

// The Details of the web tools' results, for the UI's compact views. They
// are JSON in tools.Result.Details; decode them into these types. Error
// results carry no Details.

// SearchDetails is the Details of web_search: a numbered result list.
type SearchDetails struct {
	Backend string         `json:"backend"` // "DuckDuckGo", "SearXNG", "Brave Search" or "Tavily"
	Query   string         `json:"query"`
	Results []SearchResult `json:"results"`
}

// SearchResult is one result of a search.
type SearchResult struct {
	N       int    `json:"n"` // 1-based, as numbered in the text
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
	RefID   string `json:"ref_id"`
}

// PageDetails is the Details of web_open and web_click: a page as its
// title, URL and first lines.
type PageDetails struct {
	RefID       string   `json:"ref_id"`
	URL         string   `json:"url"` // after redirects
	Title       string   `json:"title,omitempty"`
	ContentType string   `json:"content_type"` // the media type, "text/html"
	Size        string   `json:"size"`         // "12.3 KiB"
	Status      int      `json:"status"`       // the HTTP status
	Lines       int      `json:"lines"`        // lines of text in the whole page
	From        int      `json:"from"`         // the first line shown, 1-based; 0 when none
	To          int      `json:"to"`           // the last line shown
	Head        []string `json:"head"`         // the first (at most 5) non-blank lines shown
	Links       int      `json:"links"`        // links on the whole page
	Redirects   []string `json:"redirects,omitempty"`
	Note        string   `json:"note,omitempty"` // charset trouble, a cut body, a ref fetched again
	// Clicked is set by web_click: the link that was followed.
	Clicked *ClickedLink `json:"clicked,omitempty"`
}

// ClickedLink is the link web_click followed.
type ClickedLink struct {
	From string `json:"from"` // the ref_id of the page holding the link
	ID   int    `json:"id"`
	Text string `json:"text"`
}

// FindDetails is the Details of web_find.
type FindDetails struct {
	RefID   string      `json:"ref_id"`
	URL     string      `json:"url"`
	Title   string      `json:"title,omitempty"`
	Pattern string      `json:"pattern"`
	Total   int         `json:"total"` // matches in the page
	Matches []FindMatch `json:"matches"`
}

// FindMatch is one match of web_find.
type FindMatch struct {
	Line int    `json:"line"` // 1-based
	Text string `json:"text"` // the line, clipped
}
