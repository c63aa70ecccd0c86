package bases

import (
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/metadata"
)

// prop is a note property, by its exact name, else without case.
func (e *env) prop(name string) any {
	for _, p := range e.f.Props {
		if p.Key == name {
			return e.typed(p)
		}
	}
	for _, p := range e.f.Props {
		if strings.EqualFold(p.Key, name) {
			return e.typed(p)
		}
	}
	return nil
}

// typed is a property's value as the base computes with it: a date
// property (written as a date, or a text the vault's property types,
// .obsidian/types.json, say is a date) is a date, so that start_date +
// "2w" adds two weeks (it gave the text "2026-11-022w").
func (e *env) typed(p metadata.Property) any {
	t := p.Type
	if vt, ok := e.types[strings.ToLower(p.Key)]; ok {
		t = vt
	}
	if t == "date" || t == "datetime" {
		if d, ok := toDate(p.Value); ok {
			return d
		}
	}
	return p.Value
}
