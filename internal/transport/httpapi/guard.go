package httpapi

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/envelope"
	"github.com/obsidian-mcp/obsidian-mcp/internal/transport/mcphttp"
)

// allowHeaders are the request headers a browser may send cross-origin:
// the MCP ones and the three that carry the API key.
const allowHeaders = "Content-Type, Accept, Authorization, X-Api-Key, X-ObsiScripta-Api-Key, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"

// guard refuses, before anything reaches a tool: a Host that is not this
// machine's or an allowed one (DNS rebinding), an Origin that is not
// allowed (a web page the user visits), a missing or wrong API key (all
// from the headers alone), and a body over the limit (from its declared
// length when it has one, before reading it). It answers CORS preflights
// for allowed origins, caps the requests served at once (their bodies
// too), and bounds each request's time, reading its body included.
func (h *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.hostAllowed(r.Host) {
			h.refuse(w, http.StatusForbidden, "FORBIDDEN_HOST", "the Host header names no address this server answers to", "Use http://127.0.0.1 or http://localhost, or add the name to --allowed-hosts.")
			return
		}
		origin := r.Header.Get("Origin")
		if origin != "" {
			if !h.originAllowed(origin) && !SameHost(origin, r.Host) {
				h.refuse(w, http.StatusForbidden, "FORBIDDEN_ORIGIN", "requests from the web page at "+origin+" are not allowed", "Add the origin to --cors-origin if that page should reach your notes.")
				return
			}
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Add("Vary", "Origin")
			w.Header().Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version")
			if r.Method == http.MethodOptions {
				w.Header().Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
				w.Header().Set("Access-Control-Allow-Headers", allowHeaders)
				w.Header().Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		// The key or token is checked from the headers, before any body is
		// read: whoever has not got it costs no more than its headers.
		if h.opts.OAuth != nil && !h.secure(r) {
			// A bearer token sent in the clear can be taken and replayed.
			h.refuse(w, http.StatusForbidden, "HTTPS_REQUIRED", "this server takes OAuth tokens over HTTPS only, and this request came over plain HTTP from another machine",
				"Reach it at its https:// address; a reverse proxy that terminates TLS must be named in --behind-proxy and send X-Forwarded-Proto: https.")
			return
		}
		if r = h.authorize(w, r); r == nil {
			return
		}
		if r.Method == http.MethodPost && r.ContentLength > h.opts.MaxBody {
			h.tooLarge(w, r)
			return
		}
		if r.Method == http.MethodPost || r.Method == http.MethodDelete {
			ctx := r.Context()
			if h.opts.CallTimeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, h.opts.CallTimeout)
				defer cancel()
			}
			// The slot is taken before the body is read: at most
			// MaxConcurrent bodies are in memory at once, however many
			// clients send them.
			h.waiting.Add(1)
			select {
			case h.slots <- struct{}{}:
				h.waiting.Add(-1)
				defer func() { <-h.slots }()
			case <-ctx.Done():
				h.waiting.Add(-1)
				h.refuse(w, http.StatusServiceUnavailable, "BUSY", "the server is busy with other calls", "Try again shortly.")
				return
			case <-h.stopping:
				h.waiting.Add(-1)
				w.Header().Set("Connection", "close")
				h.refuse(w, http.StatusServiceUnavailable, "STOPPING", "the server is stopping", "Try again once it is back.")
				return
			}
			rc := http.NewResponseController(w)
			if r.Method == http.MethodPost && r.Body != nil {
				// A body sent slowly cannot hold its slot past BodyTimeout.
				_ = rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout))
				body, err := io.ReadAll(io.LimitReader(r.Body, h.opts.MaxBody+1))
				if err != nil {
					// The deadline stays: the server must not wait for
					// the rest of the body before answering either.
					w.Header().Set("Connection", "close")
					h.refuse(w, http.StatusBadRequest, "BAD_REQUEST", "the request body could not be read within "+h.opts.BodyTimeout.String()+": "+err.Error(), "Send the body at once.")
					return
				}
				if int64(len(body)) > h.opts.MaxBody {
					h.tooLarge(w, r)
					return
				}
				_ = rc.SetReadDeadline(time.Time{})
				r.Body = &bodyBuffer{Reader: bytes.NewReader(body), data: body}
				r.ContentLength = int64(len(body))
			}
			if h.opts.CallTimeout > 0 {
				// A client that stops reading cannot hold its slot much
				// past the call's bound either; the margin lets the
				// answer to a call that ran out of time be written.
				_ = rc.SetWriteDeadline(time.Now().Add(h.opts.CallTimeout + h.opts.WriteMargin))
			}
			r = r.WithContext(ctx)
		}
		h.active.Add(1)
		defer h.active.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// hostAllowed accepts loopback names and addresses, and the configured
// names, with any port.
func (h *Server) hostAllowed(host string) bool {
	name := host
	if n, _, err := net.SplitHostPort(host); err == nil {
		name = n
	}
	name = strings.ToLower(strings.Trim(name, "[]"))
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	if ip := net.ParseIP(name); ip != nil && ip.IsLoopback() {
		return true
	}
	return slices.Contains(h.opts.AllowedHosts, name)
}

// originAllowed accepts loopback origins (a local web UI such as
// llama.cpp's) and the configured ones.
func (h *Server) originAllowed(origin string) bool { return OriginAllowed(origin, h.opts.CORSOrigins) }

// SameHost reports whether a page at origin was served by this server
// under the name the request reached it by (host, an allowed one, which
// the guard checked first): the built-in authorization server's consent
// page posting its form, at the address Claude's servers reach (a
// tunnel's https://vault.example.com). The scheme is not compared: a
// tunnel or proxy ends TLS before the request gets here.
func SameHost(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	// A default port may be in one and not in the other.
	h, port, err := net.SplitHostPort(host)
	return err == nil && u.Port() == "" && (port == "443" || port == "80") && strings.EqualFold(u.Hostname(), h)
}

// OriginAllowed reports whether a browser page at origin may call: a page
// served from this machine (http or https, localhost or a loopback
// address), or one of allowed ("scheme://host[:port]"; "*" is any).
func OriginAllowed(origin string, allowed []string) bool {
	if slices.Contains(allowed, "*") {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		name := strings.ToLower(u.Hostname())
		if name == "localhost" {
			return true
		}
		if ip := net.ParseIP(name); ip != nil && ip.IsLoopback() {
			return true
		}
	}
	return slices.Contains(allowed, strings.ToLower(u.Scheme+"://"+u.Host))
}

func (h *Server) refuse(w http.ResponseWriter, status int, code, msg, details string) {
	mcphttp.Refuse(w, status, code, msg, details)
}

func sizeString(n int64) string {
	switch {
	case n%(1<<20) == 0:
		return itoa(n>>20) + " MiB"
	case n%(1<<10) == 0:
		return itoa(n>>10) + " KiB"
	}
	return itoa(n) + " bytes"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// bodyBuffer is a request body the guard has read (bounded), so that the
// handlers can look at it (isEnvelope) and read it as usual.
type bodyBuffer struct {
	*bytes.Reader
	data []byte
}

func (*bodyBuffer) Close() error { return nil }

// accessLog logs one line per request on stderr: method, path, status,
// size, duration, and the client's address. Bodies and keys never.
func (h *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := NewRecorder(w)
		next.ServeHTTP(rec, r)
		level := h.logger.Info
		if rec.Status >= 500 {
			level = h.logger.Warn
		}
		level("http", "method", r.Method, "path", r.URL.Path, "status", rec.Status, "bytes", rec.Bytes,
			"duration", time.Since(start), "remote", r.RemoteAddr, "session", r.Header.Get("Mcp-Session-Id"))
	})
}

// Recorder notes a response's status and size, for access logs; it
// passes Flush on, which SSE needs, and unwraps for
// http.ResponseController.
type Recorder struct {
	http.ResponseWriter
	Status int
	Bytes  int64
	wrote  bool
}

// NewRecorder records what is written to w (status 200 until told).
func NewRecorder(w http.ResponseWriter) *Recorder {
	return &Recorder{ResponseWriter: w, Status: http.StatusOK}
}

func (r *Recorder) WriteHeader(status int) {
	if !r.wrote {
		r.Status, r.wrote = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *Recorder) Write(p []byte) (int, error) {
	r.wrote = true
	n, err := r.ResponseWriter.Write(p)
	r.Bytes += int64(n)
	return n, err
}

func (r *Recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *Recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// tooLarge refuses a body over the limit: 413, or, on the envelope API's
// own endpoints, its HTTP 200 envelope, as its clients expect every
// answer.
func (h *Server) tooLarge(w http.ResponseWriter, r *http.Request) {
	msg := "the request body exceeds maximum size of " + sizeString(h.opts.MaxBody)
	if envelopePaths[r.URL.Path] {
		env := envelope.Failure(envelope.Invalid, "REQUEST_TOO_LARGE", "HTTP bridge error: "+msg, 1)
		env.Meta = envelope.MetaOf(h.opts.Version, h.opts.GitSHA)
		envelope.Write(w, env)
		return
	}
	h.refuse(w, http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE", msg, "Send less at once.")
}

// envelopePeek bounds what is read of a request without the key, to tell
// an envelope API call (answered in its own format) from JSON-RPC.
const envelopePeek = 16 << 10

// envelopeRefusal reports whether a request without the key is one for the
// envelope API: by its path, or, at /mcp, by the start of a body short
// enough to read whole within envelopePeek.
func (h *Server) envelopeRefusal(w http.ResponseWriter, r *http.Request) bool {
	if envelopePaths[r.URL.Path] {
		return true
	}
	if r.URL.Path != "/mcp" || r.Method != http.MethodPost || r.Body == nil || r.ContentLength > envelopePeek {
		return false
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout))
	head, err := io.ReadAll(io.LimitReader(r.Body, envelopePeek+1))
	if err != nil || len(head) > envelopePeek {
		// The rest is not read: the refusal closes the connection, and
		// the deadline stays so that nothing waits for it.
		w.Header().Set("Connection", "close")
		return false
	}
	_ = rc.SetReadDeadline(time.Time{})
	return envelope.IsEnvelope(head)
}
