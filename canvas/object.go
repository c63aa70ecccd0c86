package canvas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Object is a JSON object that keeps its keys in their order and its
// values as written, so that a canvas read and written again differs only
// where it was changed: the keys a later JSON Canvas version or a plugin
// adds survive, and Obsidian's order (id, type, …, x, y, width, height,
// color) stays.
type Object struct {
	keys []string
	vals map[string]json.RawMessage
}

// UnmarshalJSON reads an object, keeping its key order.
func (o *Object) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("is not an object")
	}
	o.keys, o.vals = nil, map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return err
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = c.Bytes()
	}
	_, err = dec.Token()
	return err
}

// MarshalJSON writes the object on one line, keys in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(encode(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// encode is v as JSON the way JavaScript's JSON.stringify writes it: no
// escaping of <, > and &.
func encode(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null") // not JSON values: none come from decoded JSON
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// Has reports whether the object has key k.
func (o Object) Has(k string) bool { _, ok := o.vals[k]; return ok }

// Keys are the object's keys, in order.
func (o Object) Keys() []string { return o.keys }

// Raw is k's value as written, nil when absent.
func (o Object) Raw(k string) json.RawMessage { return o.vals[k] }

// String is k's value when it is a string.
func (o Object) String(k string) (string, bool) {
	var s string
	if v, ok := o.vals[k]; ok && json.Unmarshal(v, &s) == nil {
		return s, true
	}
	return "", false
}

// Str is k's string value, "" when absent or not a string.
func (o Object) Str(k string) string { s, _ := o.String(k); return s }

// Number is k's value when it is a number.
func (o Object) Number(k string) (float64, bool) {
	var f float64
	if v, ok := o.vals[k]; ok && json.Unmarshal(v, &f) == nil {
		return f, true
	}
	return 0, false
}

// Set gives k the value v (a string, number or raw JSON), appending the
// key when it is new.
func (o *Object) Set(k string, v any) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	var raw json.RawMessage
	switch v := v.(type) {
	case json.RawMessage:
		raw = v
	case int:
		raw = []byte(strconv.Itoa(v))
	default:
		raw = encode(v)
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = raw
}

// Delete removes k.
func (o *Object) Delete(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// FromMap is the object of a decoded JSON object, its keys sorted (a map
// has no order; Add and Update put the keys they know in Obsidian's).
func FromMap(m map[string]any) Object {
	var o Object
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] == nil {
			o.Set(k, json.RawMessage("null"))
			continue
		}
		o.Set(k, m[k])
	}
	return o
}
