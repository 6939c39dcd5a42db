package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zut-go/zut/proto/regular"
)

// DefaultAPIURL is the Bot API of Telegram's servers.
const DefaultAPIURL = "https://api.telegram.org"

// Client calls the Bot API with one bot's token. The token is part of
// every URL; no error, log line or message of the client shows it. Safe
// for concurrent use.
type Client struct {
	base  string
	token string
	http  *http.Client
}

// NewClient returns a client of the Bot API at baseURL (DefaultAPIURL when
// empty; a self-hosted server or a test server otherwise). hc may be nil.
func NewClient(baseURL, token string, hc *http.Client) *Client {
	if baseURL == "" {
		baseURL = DefaultAPIURL
	}
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), token: token, http: hc}
}

// APIError is an error the Bot API answered with.
type APIError struct {
	Method      string
	Code        int // error_code, the HTTP status
	Description string
	Wait        time.Duration // parameters.retry_after (429)
}

func (e *APIError) Error() string {
	return fmt.Sprintf("telegram %s: %d %s", e.Method, e.Code, e.Description)
}

// RetryAfter is how long Telegram asked to wait (bot.RetryAfter reads it).
func (e *APIError) RetryAfter() time.Duration { return e.Wait }

// Unauthorized reports whether the token was refused (wrong or revoked).
func (e *APIError) Unauthorized() bool {
	return e.Code == 401 || (e.Code == 404 && e.Method == "getMe")
}

// CantParse reports whether Telegram refused the message's markup.
func (e *APIError) CantParse() bool {
	return e.Code == 400 && strings.Contains(strings.ToLower(e.Description), "can't parse entities")
}

// NotModified reports an edit that changed nothing.
func (e *APIError) NotModified() bool {
	return e.Code == 400 && strings.Contains(e.Description, "message is not modified")
}

// NetworkError is a call that got no answer from the Bot API.
type NetworkError struct {
	Method string
	Err    error // without the URL
	msg    string
}

func (e *NetworkError) Error() string { return e.msg }
func (e *NetworkError) Unwrap() error { return e.Err }

// scrub removes the token from s.
func (c *Client) scrub(s string) string {
	if c.token == "" {
		return s
	}
	s = strings.ReplaceAll(s, c.token, "<token>")
	return strings.ReplaceAll(s, url.PathEscape(c.token), "<token>")
}

// netError wraps an HTTP error without the URL, which has the token.
func (c *Client) netError(method string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &NetworkError{Method: method, Err: err, msg: fmt.Sprintf("telegram %s: %v", method, err)}
	}
	return &NetworkError{Method: method, Err: err, msg: c.scrub(fmt.Sprintf("telegram %s: %v (check the network, or ZUT_TELEGRAM_API_URL)", method, err))}
}

// maxResponse bounds the body of an answer (getUpdates with 100 updates is
// far below).
const maxResponse = 16 << 20

// Call calls method with params (encoded as a JSON object) and decodes the
// result into result (when not nil).
func (c *Client) Call(ctx context.Context, method string, params any, result any) error {
	body, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("telegram %s: encode the parameters: %v", method, err)
	}
	if params == nil {
		body = []byte("{}")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.methodURL(method), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("telegram %s: %s", method, c.scrub(err.Error()))
	}
	req.Header.Set("Content-Type", "application/json")
	return c.do(req, method, result)
}

// Me calls getMe: it checks the token and names the bot.
func (c *Client) Me(ctx context.Context) (User, error) {
	var u User
	err := c.Call(ctx, "getMe", nil, &u)
	return u, err
}

func (c *Client) methodURL(method string) string {
	return c.base + "/bot" + c.token + "/" + method
}

func (c *Client) do(req *http.Request, method string, result any) error {
	req.Header.Set("User-Agent", "zut")
	resp, err := c.http.Do(req)
	if err != nil {
		return c.netError(method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return c.netError(method, err)
	}
	if len(raw) > maxResponse {
		return &APIError{Method: method, Code: resp.StatusCode, Description: "the answer is larger than 16 MiB"}
	}
	var env struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		ErrorCode   int             `json:"error_code"`
		Description string          `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return &APIError{Method: method, Code: resp.StatusCode, Description: "the answer is not Bot API JSON: " + c.scrub(snippet(raw))}
	}
	if !env.OK {
		code := env.ErrorCode
		if code == 0 {
			code = resp.StatusCode
		}
		wait := time.Duration(env.Parameters.RetryAfter) * time.Second
		if wait == 0 && code == 429 {
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
				wait = time.Duration(s) * time.Second
			}
		}
		return &APIError{Method: method, Code: code, Description: c.scrub(env.Description), Wait: wait}
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(env.Result, result); err != nil {
		return &APIError{Method: method, Code: resp.StatusCode, Description: "unexpected result: " + err.Error()}
	}
	return nil
}

func snippet(b []byte) string {
	s := strings.ToValidUTF8(string(b[:min(len(b), 120)]), "?")
	return strings.Join(strings.Fields(s), " ")
}

// Upload calls method with a multipart body: the fields as form values and
// the file at path as field fileField named name. The file is streamed.
func (c *Client) Upload(ctx context.Context, method string, fields map[string]string, fileField, name, path string, result any) error {
	f, err := regular.Open(path)
	if err != nil {
		return fmt.Errorf("telegram %s: %v", method, err)
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	written := make(chan struct{})
	go func() {
		// Ends when the body is written or the reader is closed below,
		// which makes every write fail.
		defer close(written)
		pw.CloseWithError(writeMultipart(mw, fields, fileField, name, f))
	}()
	defer func() {
		pr.CloseWithError(errors.New("the request ended"))
		<-written
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.methodURL(method), pr)
	if err != nil {
		return fmt.Errorf("telegram %s: %s", method, c.scrub(err.Error()))
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.do(req, method, result)
}

func writeMultipart(mw *multipart.Writer, fields map[string]string, fileField, name string, r io.Reader) error {
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			return err
		}
	}
	part, err := mw.CreateFormFile(fileField, name)
	if err != nil {
		return err
	}
	if _, err := io.Copy(part, r); err != nil {
		return err
	}
	return mw.Close()
}

// Download reads the file at filePath (from getFile) of at most max bytes.
func (c *Client) Download(ctx context.Context, filePath string, max int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/file/bot"+c.token+"/"+filePath, nil)
	if err != nil {
		return nil, fmt.Errorf("telegram download: %s", c.scrub(err.Error()))
	}
	req.Header.Set("User-Agent", "zut")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.netError("download", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &APIError{Method: "download", Code: resp.StatusCode, Description: http.StatusText(resp.StatusCode)}
	}
	if resp.ContentLength > max {
		return nil, fmt.Errorf("telegram download: the file is %d bytes, more than the %d allowed", resp.ContentLength, max)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, c.netError("download", err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("telegram download: the file is larger than the %d bytes allowed", max)
	}
	return b, nil
}
