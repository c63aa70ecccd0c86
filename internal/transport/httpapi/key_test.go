package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mustKey(t *testing.T, key string) Key {
	t.Helper()
	k, err := NewKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestKey: the rules a key must meet, its file, and every header that
// carries it; a missing key and a wrong one are told apart.
func TestKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"":                         "holds no key",
		"short":                    "too short: use at least 16 characters",
		"0123456789abcde":          "too short",
		"0123456789 abcdef-with-a": "white space",
	} {
		if _, err := NewKey(key); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewKey(%q) = %v, want %q", key, err, want)
		}
	}
	const key = "0123456789abcdef"
	k := mustKey(t, "  "+key+"\n")
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte(key+"\r\nsecond line ignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fk, err := ReadKeyFile(file)
	if err != nil || fk != k {
		t.Errorf("ReadKeyFile = %v, want the key of its first line", err)
	}
	if _, err := ReadKeyFile(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "cannot be read") {
		t.Errorf("a missing key file: %v", err)
	}
	for _, tc := range []struct {
		header, value string
		ok, presented bool
	}{
		{"Authorization", "Bearer " + key, true, true},
		{"Authorization", "bearer  " + key, true, true},
		{"X-Api-Key", key, true, true},
		{"X-ObsiScripta-Api-Key", key, true, true},
		{"X-Api-Key", key + "x", false, true},
		{"Authorization", "Basic " + key, false, false},
		{"", "", false, false},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		if tc.header != "" {
			r.Header.Set(tc.header, tc.value)
		}
		if ok, presented := k.Allows(r); ok != tc.ok || presented != tc.presented {
			t.Errorf("%s: %q: allowed %v, presented %v; want %v, %v", tc.header, tc.value, ok, presented, tc.ok, tc.presented)
		}
	}
	if ok, _ := (Key{}).Allows(httptest.NewRequest(http.MethodGet, "/", nil)); !ok {
		t.Error("no key set, and a request was refused")
	}
}

// TestRefusedFromHeadersAlone: a request without the key, or with a
// declared body over the limit, is answered from its headers, before any
// body byte is sent: whoever has not got the key cannot make the server
// hold a body (4 MiB each, for as long as it cares to send it).
func TestRefusedFromHeadersAlone(t *testing.T) {
	t.Parallel()
	const key = "headers-alone-key-0123"
	f := newFixture(t, Options{Key: mustKey(t, key), MaxBody: 1 << 20})
	u, err := url.Parse(f.url)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, headers string
		want                int
	}{
		{"no key, MCP", "/mcp", "", 401},
		{"wrong key, Bridge v1", "/bridge/v1/tools/ok/call", "X-Api-Key: not-the-key-at-all-0\r\n", 401},
		{"no key, envelope API", "/v1/mcp", "", 200},
		{"with the key, declared too large", "/mcp", "X-Api-Key: " + key + "\r\n", 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			// The headers promise 4 MiB; not one byte of it is sent.
			if _, err := fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n", tc.path, tc.headers, 4<<20); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer before the body was sent: %v", err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			if tc.want == 200 && !strings.Contains(string(body), "AUTH_REQUIRED") {
				t.Errorf("the envelope API's refusal: %s", body)
			}
		})
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("%d tools ran", n)
	}
}

// TestSlowBodyHoldsNoSlot: a body that stalls is given up after
// BodyTimeout, and the slot it held (bodies are read in a slot, so that at
// most MaxConcurrent are in memory) serves the next request.
func TestSlowBodyHoldsNoSlot(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{BodyTimeout: time.Second, MaxConcurrent: 1})
	u, _ := url.Parse(f.url)
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"")
	second := make(chan int, 1)
	go func() {
		status, _, _ := do(t, http.MethodPost, f.url, listBody, nil)
		second <- status
	}()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the stalled POST got no answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("the stalled POST: %d, want 400", resp.StatusCode)
	}
	select {
	case status := <-second:
		if status != 200 {
			t.Errorf("the request that waited for the slot: %d", status)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the request that waited for the slot was never served")
	}
}

// TestStopRefusesWaiters: at stop, a request still waiting for a slot is
// refused at once (503 STOPPING) instead of waiting for the calls in
// flight, which finish.
func TestStopRefusesWaiters(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{MaxConcurrent: 1})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- f.h.Serve(ctx, ln, 20*time.Second) }()
	url := "http://" + ln.Addr().String() + "/mcp"
	blocked := make(chan int, 1)
	go func() {
		status, _, _ := do(t, http.MethodPost, url, callBody("block"), nil)
		blocked <- status
	}()
	f.waitCall(t)
	waiter := make(chan string, 1)
	go func() {
		status, _, body := do(t, http.MethodPost, url, listBody, nil)
		waiter <- fmt.Sprint(status, " ", body)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for f.h.waiting.Load() < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the second request never waited for the slot")
		}
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	select {
	case got := <-waiter:
		if !strings.HasPrefix(got, "503 ") || !strings.Contains(got, "STOPPING") {
			t.Errorf("the request waiting for a slot at stop: %s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request waiting for a slot was not refused at stop")
	}
	close(f.release)
	if status := <-blocked; status != 200 {
		t.Errorf("the call in flight at stop: %d", status)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
