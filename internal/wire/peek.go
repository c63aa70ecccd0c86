package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

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

// peek reads the top-level members of a message, in whatever order they
// come: JSON does not order an object's members, and clients differ (the
// official TypeScript SDK writes method, params, jsonrpc, id; mcp-go and
// the Go SDK write the id first). It must see them all, since the id may
// come last, so it skips values without decoding them: a string is passed
// over with bytes.IndexByte, which keeps a 10 MB note in "params" or
// "result" cheap, and nothing is allocated but the method's name.
//
// Members are matched as encoding/json matches them to mcp-go's structs,
// which decide what mcp-go answers: names case-insensitively ("ID" is the
// id), escapes decoded, the last of duplicates winning, and a null method
// leaving the one before it. Only a JSON object is ok. On input that is not
// valid JSON peek never panics but may report anything; Input checks
// validity, and mcp-go writes valid JSON.
func peek(b []byte) (f facts, ok bool) {
	s := scanner{b: b}
	if !s.eat('{') {
		return f, false
	}
	var params []byte
	if !s.eat('}') {
		for {
			key, ok := s.str()
			if !ok || !s.eat(':') {
				return f, false
			}
			val, ok := s.value()
			if !ok {
				return f, false
			}
			switch member(key) {
			case "id":
				f.rawID = val
			case "method":
				switch val[0] {
				case '"':
					f.method = unquote(val)
				case 'n': // null: encoding/json leaves a string as it was
				default:
					return f, false // mcp-go cannot decode such a message
				}
			case "params":
				params = val
			case "result":
				f.hasResult = true
			case "error":
				f.hasError = true
			}
			if s.eat('}') {
				break
			}
			if !s.eat(',') {
				return f, false
			}
		}
	}
	f.id = idKeyRaw(f.rawID)
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

// members are the top-level names peek looks for.
var members = [...]string{"id", "method", "params", "result", "error"}

// member is the name among members that key (a raw JSON string, quotes
// included) stands for, or "". encoding/json matches names with Unicode
// simple folding, as bytes.EqualFold does: "ID", and even "paramſ" with a
// long s, are members.
func member(key []byte) string {
	name := key[1 : len(key)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		name = []byte(unquote(key))
	}
	// Only s and k have folds outside ASCII (ſ, K: two and three bytes),
	// and only "params" and "result" hold an s, once: 7 bytes at most.
	if len(name) < 2 || len(name) > 7 {
		return ""
	}
	for _, m := range members {
		if bytes.EqualFold(name, []byte(m)) {
			return m
		}
	}
	return ""
}

// unquote decodes a JSON string as encoding/json does (escapes, and
// invalid UTF-8 replaced), taking the short way for plain ASCII.
func unquote(raw []byte) string {
	in := raw[1 : len(raw)-1]
	plain := true
	for _, c := range in {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(in)
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// scanner walks JSON text one token or value at a time, skipping
// whitespace before each.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat consumes c if it comes next.
func (s *scanner) eat(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str consumes a string and returns it raw, quotes included.
func (s *scanner) str() ([]byte, bool) {
	s.ws()
	start := s.i
	if start >= len(s.b) || s.b[start] != '"' {
		return nil, false
	}
	i := start + 1
	for {
		j := bytes.IndexByte(s.b[i:], '"')
		if j < 0 {
			return nil, false
		}
		i += j
		// The quote ends the string unless an odd run of backslashes
		// escapes it. Each run is looked at once, so this stays linear.
		k := i
		for k > start+1 && s.b[k-1] == '\\' {
			k--
		}
		i++
		if (i-1-k)%2 == 0 {
			s.i = i
			return s.b[start:i], true
		}
	}
}

// value consumes one value and returns it raw. Nested objects and arrays
// are skipped by counting brackets outside strings; that they match is
// left to the validity check.
func (s *scanner) value() ([]byte, bool) {
	s.ws()
	start := s.i
	if start >= len(s.b) {
		return nil, false
	}
	switch s.b[start] {
	case '"':
		return s.str()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if _, ok := s.str(); !ok {
					return nil, false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					s.i++
					return s.b[start:s.i], true
				}
			}
			s.i++
		}
		return nil, false
	case ',', ':', '}', ']':
		return nil, false
	default: // a number, true, false or null runs to the next delimiter
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.b[start:s.i], true
			}
			s.i++
		}
		return s.b[start:s.i], true
	}
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
