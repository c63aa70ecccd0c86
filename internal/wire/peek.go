package wire

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"
)

// facts are what the session needs to know of one JSON-RPC message.
type facts struct {
	id        string          // canonical id key; "" when absent or null
	rawID     json.RawMessage // the id exactly as written
	method    string
	hasResult bool
	hasError  bool
	// cancelled is the canonical requestId of a notifications/cancelled.
	cancelled string
}

func (f facts) isRequest() bool  { return f.id != "" && f.method != "" }
func (f facts) isResponse() bool { return f.id != "" && f.method == "" && (f.hasResult || f.hasError) }

// peek reads the top-level members of a message and stops as soon as it
// knows enough, so a 10 MB note in "params" or "result" is not scanned twice.
// ok is false for anything that is not a JSON object.
func peek(b []byte) (f facts, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return f, false
	}
	var params json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return f, false
		}
		key, _ := tok.(string)
		switch key {
		case "id":
			if err := dec.Decode(&f.rawID); err != nil {
				return f, false
			}
			f.id = idKeyRaw(f.rawID)
		case "method":
			if err := dec.Decode(&f.method); err != nil {
				return f, false
			}
		case "result", "error":
			f.hasResult, f.hasError = key == "result", key == "error"
			if f.rawID != nil {
				return f, true // the id came first, as mcp-go writes it
			}
			if err := skip(dec); err != nil {
				return f, false
			}
		case "params":
			if f.method != "" && f.method != string(mcp.MethodNotificationCancelled) {
				return f, true
			}
			if err := dec.Decode(&params); err != nil {
				return f, false
			}
		default:
			if err := skip(dec); err != nil {
				return f, false
			}
		}
		if f.id != "" && f.method != "" && f.method != string(mcp.MethodNotificationCancelled) {
			return f, true
		}
	}
	if f.method == string(mcp.MethodNotificationCancelled) && params != nil {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(params, &p) == nil {
			f.cancelled = idKeyRaw(p.RequestID)
		}
	}
	return f, true
}

func skip(dec *json.Decoder) error {
	var v json.RawMessage
	return dec.Decode(&v)
}

// idKeyRaw is the canonical key of a JSON id: numbers and strings never
// collide (7 and "7" are different requests), and 7 and 7.0 are the same.
func idKeyRaw(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		return "s:" + s
	}
	// JSON-RPC ids are strings or numbers. Anything else is not tracked: its
	// answer might not echo it alike, and end of input would wait in vain.
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return ""
	}
	return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
}

// idKey is idKeyRaw for an id mcp-go decoded into an interface value
// (float64 or string): re-encoding it keeps one canonical form. It runs only
// for failed calls, in the OnError hook.
func idKey(id any) string {
	if r, ok := id.(mcp.RequestId); ok {
		id = r.Value()
	}
	raw, err := json.Marshal(id)
	if err != nil {
		return ""
	}
	return idKeyRaw(raw)
}
