package mcphttp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/obsidian-mcp/obsidian-mcp/internal/protocol"
)

// Message is one JSON-RPC message from a client, with what routing needs.
type Message struct {
	Raw    []byte
	ID     json.RawMessage // nil for a notification
	Method string
	// Tool is the tool a tools/call names, for a face's screen.
	Tool string
}

func (m *Message) isRequest() bool { return m.ID != nil && m.Method != "" }

// IsNotification reports a message with a method and no id.
func (m *Message) IsNotification() bool { return m.ID == nil && m.Method != "" }

// IsResponse reports a client's answer to a request of the server.
func (m *Message) IsResponse() bool { return m.ID != nil && m.Method == "" }

// rpcError is a JSON-RPC error for a body that is not JSON-RPC.
type rpcError struct {
	code int
	msg  string
}

func (e *rpcError) Error() string { return e.msg }

// parseBody reads a POST body: one JSON-RPC message or a batch of them, of
// at most maxBatch messages (whether the revision in force has batches is
// the caller's to check, once it knows the session: batchAllowed). A body
// that is not JSON is -32700; a message that is not JSON-RPC -32600, both
// worded for the person reading curl's output.
func parseBody(body []byte, maxBatch int) (msgs []*Message, batch bool, err *rpcError) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, false, &rpcError{-32600, "Invalid Request: the body is empty; send one JSON-RPC message, e.g. {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"}
	}
	if !json.Valid(body) {
		return nil, false, &rpcError{-32700, "Parse error: the body is not valid JSON"}
	}
	var raws []json.RawMessage
	if body[0] == '[' {
		if err := json.Unmarshal(body, &raws); err != nil {
			return nil, true, &rpcError{-32600, "Invalid Request: a batch must be an array of JSON-RPC messages"}
		}
		if len(raws) == 0 {
			return nil, true, &rpcError{-32600, "Invalid Request: a batch must be a non-empty array of JSON-RPC messages"}
		}
		if err := protocol.BatchSize(len(raws), maxBatch); err != nil {
			return nil, true, &rpcError{-32600, "Invalid Request: " + err.Error()}
		}
		batch = true
	} else {
		raws = []json.RawMessage{body}
	}
	for i, raw := range raws {
		m, perr := parseMessage(raw)
		if perr != nil {
			if batch {
				return nil, true, &rpcError{-32600, fmt.Sprintf("Invalid Request: batch item %d: %s", i, perr.Error())}
			}
			return nil, false, &rpcError{-32600, "Invalid Request: " + perr.Error()}
		}
		msgs = append(msgs, m)
	}
	return msgs, batch, nil
}

func parseMessage(raw []byte) (*Message, error) {
	var f struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Params  struct {
			Name string `json:"name"`
		} `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	if f.JSONRPC != "2.0" {
		return nil, fmt.Errorf(`"jsonrpc" must be "2.0"`)
	}
	m := &Message{Raw: bytes.TrimSpace(raw)}
	if f.ID != nil && !bytes.Equal(f.ID, []byte("null")) {
		switch f.ID[0] {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		default:
			return nil, fmt.Errorf(`"id" must be a string or a number`)
		}
		m.ID = f.ID
	}
	switch {
	case f.Method != nil:
		if *f.Method == "" {
			return nil, fmt.Errorf(`"method" is empty`)
		}
		m.Method = *f.Method
		if m.Method == "tools/call" {
			m.Tool = f.Params.Name
		}
	case m.ID != nil && (f.Result != nil || f.Error != nil):
		// A client's answer to a request of the server.
	default:
		return nil, fmt.Errorf("missing method")
	}
	return m, nil
}

// responseID is the id of an answer, nil when msg is not one.
func responseID(msg []byte) json.RawMessage {
	var f struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &f) != nil || f.Method != "" {
		return nil
	}
	return f.ID
}
