package browser

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/icm-tool/icm/server/internal/act"
	"github.com/icm-tool/icm/server/internal/fetch"
)

// CamofoxBackend reads pages through a camofox-browser server's REST API
// (a stealth Firefox for sites that turn away plain clients). It opens a
// tab, reads the tab's accessibility snapshot page by page, and always
// deletes the tab, whatever happened in between.
//
// camofox fetches pages itself, from wherever it runs, so the address
// policy is applied to the URL before it is handed over; redirects and
// subresources inside camofox are out of icm's reach.
type CamofoxBackend struct {
	// BaseURL is the camofox server, e.g. http://localhost:9500.
	BaseURL string
	Fetcher *fetch.Fetcher
	// HTTP is the client for camofox; nil means one with a 60 s timeout.
	HTTP *http.Client
	// UserID is camofox's session owner; empty means "icm".
	UserID string
	// MaxChars caps the snapshot read; zero means fetch.DefaultMaxBytes.
	MaxChars int
}

// Name returns "camofox".
func (b *CamofoxBackend) Name() string { return "camofox" }

func (b *CamofoxBackend) client() *http.Client {
	if b.HTTP != nil {
		return b.HTTP
	}
	// camofox is the server the reader's own command line names; the
	// pages it fetches were held to the address policy before.
	const why = "the page reader's camofox browser"
	return act.HTTPClient(act.Own(why), act.Action{Kind: act.Contact, URL: b.BaseURL, Reason: why}, act.HTTP{Timeout: 60 * time.Second})
}

func (b *CamofoxBackend) user() string {
	if b.UserID != "" {
		return b.UserID
	}
	return "icm"
}

// Load opens url in a camofox tab and reads its snapshot.
func (b *CamofoxBackend) Load(ctx context.Context, rawURL string) (*Page, error) {
	u, err := b.Fetcher.Precheck(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	id, err := b.open(ctx, u.String())
	if err != nil {
		return nil, err
	}
	defer b.close(id)
	text, final, err := b.snapshot(ctx, id)
	if err != nil {
		return nil, err
	}
	if final == "" {
		final = u.String()
	}
	return PageFromSnapshot(final, text), nil
}

func (b *CamofoxBackend) do(ctx context.Context, method, path string, body any, out any) error {
	base := strings.TrimRight(b.BaseURL, "/")
	var rd io.Reader
	if body != nil {
		j, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return fmt.Errorf("unable to call camofox at %s: %w", base, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := b.client().Do(req)
	if err != nil {
		return fmt.Errorf("camofox is not reachable at %s (%v); start it with `docker compose -f docker/compose.yml up -d camofox` or leave out --camofox", base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("unable to read camofox's answer to %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("camofox answered %s %s with HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	if out != nil && len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("camofox's answer to %s %s is not JSON: %w", method, path, err)
		}
	}
	return nil
}

func (b *CamofoxBackend) open(ctx context.Context, pageURL string) (string, error) {
	var key [4]byte
	rand.Read(key[:])
	var resp struct {
		TabID string `json:"tabId"`
		ID    string `json:"id"`
		Tab   struct {
			ID string `json:"id"`
		} `json:"tab"`
	}
	body := map[string]string{"userId": b.user(), "sessionKey": "icm-" + hex.EncodeToString(key[:]), "url": pageURL}
	if err := b.do(ctx, http.MethodPost, "/tabs", body, &resp); err != nil {
		return "", err
	}
	for _, id := range []string{resp.TabID, resp.ID, resp.Tab.ID} {
		if id != "" {
			return id, nil
		}
	}
	return "", fmt.Errorf("camofox opened a tab for %s but did not say its id", pageURL)
}

// close deletes the tab on a context of its own, so a cancelled call
// still frees it.
func (b *CamofoxBackend) close(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q := url.Values{"userId": {b.user()}}.Encode()
	_ = b.do(ctx, http.MethodDelete, "/tabs/"+url.PathEscape(id)+"?"+q, map[string]string{"userId": b.user()}, nil)
}

// snapshot reads the whole accessibility snapshot, following camofox's
// pagination, up to MaxChars.
func (b *CamofoxBackend) snapshot(ctx context.Context, id string) (string, string, error) {
	limit := b.MaxChars
	if limit <= 0 {
		limit = fetch.DefaultMaxBytes
	}
	var sb strings.Builder
	final := ""
	offset := 0
	for page := 0; page < 100; page++ {
		var resp struct {
			URL        string `json:"url"`
			Snapshot   string `json:"snapshot"`
			HasMore    bool   `json:"hasMore"`
			NextOffset int    `json:"nextOffset"`
		}
		q := url.Values{"userId": {b.user()}, "offset": {fmt.Sprint(offset)}}.Encode()
		if err := b.do(ctx, http.MethodGet, "/tabs/"+url.PathEscape(id)+"/snapshot?"+q, nil, &resp); err != nil {
			return "", "", err
		}
		if final == "" {
			final = resp.URL
		}
		sb.WriteString(resp.Snapshot)
		sb.WriteByte('\n')
		if sb.Len() > limit {
			return "", "", &fetch.TooLargeError{URL: final, Limit: int64(limit)}
		}
		if !resp.HasMore || resp.NextOffset <= offset {
			break
		}
		offset = resp.NextOffset
	}
	return sb.String(), final, nil
}
