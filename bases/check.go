package bases

import (
	"fmt"
	"slices"
	"strings"
)

// The names the evaluation knows, for the check before a query.
var (
	globalFuncs = []string{"if", "now", "today", "date", "number", "list", "link", "max", "min"}
	fileFields  = []string{"name", "basename", "path", "folder", "ext", "size", "ctime", "mtime", "tags", "links", "properties"}
	fileMethods = []string{"hasTag", "inFolder", "hasLink", "hasProperty"}
	methods     = []string{"isTruthy", "isEmpty", "toString", "isType",
		"contains", "containsAll", "containsAny", "startsWith", "endsWith", "lower", "upper", "trim", "replace", "split", "slice",
		"toFixed", "round", "floor", "ceil", "abs", "join", "unique", "sort", "reverse", "flat", "format", "date"}
)

// check finds, before anything is evaluated, a name the evaluation does
// not know: an unsupported function stays an error even where the data
// would never reach it.
func (b *Base) check(n node) error {
	switch n := n.(type) {
	case ident:
		if n.name == "this" {
			return unsupported("`this` (the base or the note embedding it) is not supported")
		}
	case unary:
		return b.check(n.x)
	case binary:
		if err := b.check(n.l); err != nil {
			return err
		}
		return b.check(n.r)
	case array:
		for _, it := range n.items {
			if err := b.check(it); err != nil {
				return err
			}
		}
	case object:
		for _, it := range n.vals {
			if err := b.check(it); err != nil {
				return err
			}
		}
	case index:
		if err := b.check(n.x); err != nil {
			return err
		}
		return b.check(n.i)
	case member:
		if id, ok := n.x.(ident); ok {
			switch id.name {
			case "file":
				if !slices.Contains(fileFields, n.name) {
					return unsupported("file.%s is not supported (supported: %s)", n.name, strings.Join(fileFields, ", "))
				}
				return nil
			case "formula":
				if _, ok := b.Formulas[n.name]; !ok {
					return unsupported("formula.%s is not defined in the base's formulas", n.name)
				}
				return nil
			}
		}
		return b.check(n.x)
	case call:
		for _, a := range n.args {
			if err := b.check(a); err != nil {
				return err
			}
		}
		switch fn := n.fn.(type) {
		case ident:
			if !slices.Contains(globalFuncs, fn.name) {
				return unsupported("the function %s() is not supported natively (supported: %s)", fn.name, strings.Join(Functions, ", "))
			}
		case member:
			if id, ok := fn.x.(ident); ok && id.name == "file" {
				if !slices.Contains(fileMethods, fn.name) {
					return unsupported("file.%s() is not supported natively (supported: %s)", fn.name, strings.Join(fileMethods, ", "))
				}
				return nil
			}
			if !slices.Contains(methods, fn.name) {
				return unsupported("the method .%s() is not supported natively (supported: %s)", fn.name, strings.Join(Functions, ", "))
			}
			return b.check(fn.x)
		default:
			return unsupported("only functions and methods can be called")
		}
	}
	return nil
}

// checkFilter checks every expression of a filter.
func (b *Base) checkFilter(f any) error {
	switch f := f.(type) {
	case string:
		n, err := parse(f)
		if err != nil {
			return fmt.Errorf("filter %q: %v", f, err)
		}
		return b.check(n)
	case map[string]any:
		for _, list := range f {
			items, _ := list.([]any)
			for _, it := range items {
				if err := b.checkFilter(it); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkAll checks the base's formulas and filters and the view's
// columns.
func (b *Base) checkAll(v View) error {
	for name, src := range b.Formulas {
		n, err := parse(src)
		if err != nil {
			return fmt.Errorf("formula.%s: %v", name, err)
		}
		if err := b.check(n); err != nil {
			return err
		}
	}
	for _, f := range []any{b.Filters, v.Filters} {
		if err := b.checkFilter(f); err != nil {
			return err
		}
	}
	ids := slices.Clone(v.Order)
	for _, s := range v.Sort {
		ids = append(ids, s.Property)
	}
	if v.GroupBy != nil {
		ids = append(ids, v.GroupBy.Property)
	}
	for _, id := range ids {
		if rest, ok := strings.CutPrefix(id, "formula."); ok {
			if _, ok := b.Formulas[rest]; !ok {
				return unsupported("the column formula.%s is not defined in the base's formulas", rest)
			}
		}
		if rest, ok := strings.CutPrefix(id, "file."); ok && !slices.Contains(fileFields, rest) {
			return unsupported("the column file.%s is not supported (supported: %s)", rest, strings.Join(fileFields, ", "))
		}
	}
	return nil
}
