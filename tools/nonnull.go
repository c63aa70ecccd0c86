package tools

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// nonNull returns v as it goes out as a tool's structured result: every
// nil slice or map that encoding/json would write as null (a field without
// omitempty, an element of a list or map) made empty, so that a list is
// [] and never null, as the output schemas say (schema.go). v itself is not
// changed: what it shares with the engine's caches stays as it is, and a
// struct, list or map is copied only where something in it is filled. A
// value behind an interface (a property's free-form value) is left alone,
// as is a type that encodes itself.
func nonNull(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !mayHoldNil(rv.Type()) {
		return v
	}
	if out, changed := fill(rv); changed {
		return out.Interface()
	}
	return v
}

var marshaler = reflect.TypeFor[json.Marshaler]()

// holders memoizes mayHoldNil by type.
var holders sync.Map // reflect.Type → bool

// mayHoldNil reports whether a value of type t can hold, reachable through
// fields, elements and pointers, a slice or map that fill would fill.
func mayHoldNil(t reflect.Type) bool {
	if v, ok := holders.Load(t); ok {
		return v.(bool)
	}
	r := holdsNil(t, map[reflect.Type]bool{})
	holders.Store(t, r)
	return r
}

// holdsNil is mayHoldNil worked out; visiting holds the types under way,
// which a recursive type meets again (and which add nothing there).
func holdsNil(t reflect.Type, visiting map[reflect.Type]bool) bool {
	if v, ok := holders.Load(t); ok {
		return v.(bool)
	}
	if visiting[t] || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		return false
	}
	visiting[t] = true
	switch t.Kind() {
	case reflect.Pointer:
		return holdsNil(t.Elem(), visiting)
	case reflect.Slice, reflect.Map:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && f.Tag.Get("json") != "-" && holdsNil(f.Type, visiting) {
				return true
			}
		}
	}
	return false
}

// fill is v with its nil lists and maps filled, and whether anything was.
func fill(v reflect.Value) (reflect.Value, bool) {
	t := v.Type()
	if !mayHoldNil(t) {
		return v, false
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		e, changed := fill(v.Elem())
		if !changed {
			return v, false
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(e)
		return p, true
	case reflect.Struct:
		var cp reflect.Value
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			fv, changed := fillElem(v.Field(i), !strings.Contains(tag, ",omitempty"))
			if changed {
				if !cp.IsValid() {
					cp = reflect.New(t).Elem()
					cp.Set(v)
				}
				cp.Field(i).Set(fv)
			}
		}
		if cp.IsValid() {
			return cp, true
		}
	case reflect.Slice:
		var cp reflect.Value
		for i := range v.Len() {
			e, changed := fillElem(v.Index(i), true)
			if changed {
				if !cp.IsValid() {
					cp = reflect.MakeSlice(t, v.Len(), v.Len())
					reflect.Copy(cp, v)
				}
				cp.Index(i).Set(e)
			}
		}
		if cp.IsValid() {
			return cp, true
		}
	case reflect.Map:
		var cp reflect.Value
		for it := v.MapRange(); it.Next(); {
			e, changed := fillElem(it.Value(), true)
			if changed {
				if !cp.IsValid() {
					cp = reflect.MakeMapWithSize(t, v.Len())
					for it2 := v.MapRange(); it2.Next(); {
						cp.SetMapIndex(it2.Key(), it2.Value())
					}
				}
				cp.SetMapIndex(it.Key(), e)
			}
		}
		if cp.IsValid() {
			return cp, true
		}
	}
	return v, false
}

// fillElem fills v, a field or an element; written says it is written
// out even when empty (not omitempty), so a nil list or map in it becomes
// an empty one.
func fillElem(v reflect.Value, written bool) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			if !written || v.Type().Implements(marshaler) {
				return v, false
			}
			return reflect.MakeSlice(v.Type(), 0, 0), true
		}
	case reflect.Map:
		if v.IsNil() {
			if !written || v.Type().Implements(marshaler) {
				return v, false
			}
			return reflect.MakeMap(v.Type()), true
		}
	}
	return fill(v)
}
