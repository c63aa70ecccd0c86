package bases

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/metadata"
	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// File is one file of the vault as a base sees it.
type File struct {
	Path         string
	Size         int64
	Ctime, Mtime time.Time
	// Props are a note's frontmatter properties; Tags its tags without
	// '#'; Links the paths its links resolve to. Empty for other files.
	Props []metadata.Property
	Tags  []string
	Links []string
}

// unsupportedError names what the native evaluation does not do.
type unsupportedError struct{ what string }

func (e *unsupportedError) Error() string { return e.what }

func unsupported(format string, args ...any) error {
	return &unsupportedError{fmt.Sprintf(format, args...)}
}

// The objects a name can stand for.
type (
	fileObj    struct{}
	noteObj    struct{}
	formulaObj struct{}
)

// env evaluates expressions for one row.
type env struct {
	f        *File
	formulas map[string]string
	// types are the vault's property types by lower-case name
	// (Base.Types).
	types map[string]string
	// vars are names bound for this evaluation (a summary's values).
	vars map[string]any
	now  time.Time
	done map[string]any
	busy map[string]bool
	// budget bounds the query's work and watches its context (nil: no
	// bound); shared by every file's env.
	budget *budget
}

// eval evaluates n; what an operator or a call computes is bounded in
// size (checkSize).
func (e *env) eval(n node) (any, error) {
	if err := e.budget.Spend(1); err != nil {
		return nil, err
	}
	v, err := e.evalNode(n)
	if err == nil {
		switch n.(type) {
		case binary, call:
			err = checkSize(v)
		}
	}
	return v, err
}

func (e *env) evalNode(n node) (any, error) {
	switch n := n.(type) {
	case lit:
		return n.v, nil
	case array:
		out := make([]any, 0, len(n.items))
		for _, it := range n.items {
			v, err := e.eval(it)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case object:
		out := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			v, err := e.eval(n.vals[i])
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	case ident:
		if v, ok := e.vars[n.name]; ok {
			return v, nil
		}
		switch n.name {
		case "file":
			return fileObj{}, nil
		case "note":
			return noteObj{}, nil
		case "formula":
			return formulaObj{}, nil
		case "this":
			return nil, unsupported("`this` (the base or the note embedding it) is not supported")
		}
		return e.prop(n.name), nil
	case unary:
		x, err := e.eval(n.x)
		if err != nil {
			return nil, err
		}
		if n.op == "!" {
			return !truthy(x), nil
		}
		f, ok := toNumber(x)
		if !ok {
			return nil, nil
		}
		return -f, nil
	case binary:
		return e.binary(n)
	case member:
		x, err := e.eval(n.x)
		if err != nil {
			return nil, err
		}
		return e.field(x, n.name)
	case index:
		x, err := e.eval(n.x)
		if err != nil {
			return nil, err
		}
		i, err := e.eval(n.i)
		if err != nil {
			return nil, err
		}
		if s, ok := i.(string); ok {
			return e.field(x, s)
		}
		if l, ok := x.([]any); ok {
			if f, ok := toNumber(i); ok && int(f) >= 0 && int(f) < len(l) {
				return l[int(f)], nil
			}
		}
		return nil, nil
	case call:
		return e.call(n)
	}
	return nil, fmt.Errorf("cannot evaluate %T", n)
}

func (e *env) formula(name string) (any, error) {
	if v, ok := e.done[name]; ok {
		return v, nil
	}
	src, ok := e.formulas[name]
	if !ok {
		return nil, unsupported("formula.%s is not defined in the base's formulas", name)
	}
	if e.busy[name] {
		return nil, unsupported("formula.%s refers to itself", name)
	}
	if len(e.busy) >= maxFormulaChain {
		return nil, errBound("formula.%s is reached through more than %d formulas using each other", name, maxFormulaChain)
	}
	e.busy[name] = true
	defer delete(e.busy, name)
	n, err := parse(src)
	if err != nil {
		return nil, fmt.Errorf("formula.%s: %v", name, err)
	}
	v, err := e.eval(n)
	if err != nil {
		return nil, err
	}
	e.done[name] = v
	return v, nil
}

func (e *env) field(x any, name string) (any, error) {
	switch x := x.(type) {
	case fileObj:
		f := e.f
		switch name {
		case "name":
			return path.Base(f.Path), nil
		case "basename":
			return note.Stem(f.Path), nil
		case "path":
			return f.Path, nil
		case "folder":
			return note.Dir(f.Path), nil
		case "ext":
			return note.Ext(f.Path), nil
		case "size":
			return float64(f.Size), nil
		case "ctime":
			return f.Ctime, nil
		case "mtime":
			return f.Mtime, nil
		case "tags":
			return strList(f.Tags, "#"), nil
		case "links":
			return strList(f.Links, ""), nil
		case "properties":
			m := map[string]any{}
			for _, p := range f.Props {
				m[p.Key] = p.Value
			}
			return m, nil
		}
		return nil, unsupported("file.%s is not supported (supported: name, basename, path, folder, ext, size, ctime, mtime, tags, links, properties)", name)
	case noteObj:
		return e.prop(name), nil
	case formulaObj:
		return e.formula(name)
	case map[string]any:
		return x[name], nil
	case string:
		if name == "length" {
			return float64(len([]rune(x))), nil
		}
	case []any:
		if name == "length" {
			return float64(len(x)), nil
		}
	case time.Time:
		switch name {
		case "year":
			return float64(x.Year()), nil
		case "month":
			return float64(x.Month()), nil
		case "day":
			return float64(x.Day()), nil
		case "hour":
			return float64(x.Hour()), nil
		case "minute":
			return float64(x.Minute()), nil
		}
	case nil:
		return nil, nil
	}
	return nil, unsupported("the field .%s of a %s is not supported", name, typeName(x))
}

// Functions lists what the native evaluation supports, for the docs and
// for the error that names an unsupported one.
var Functions = []string{
	"if", "now", "today", "date", "number", "list", "link", "max", "min",
	"file.hasTag", "file.inFolder", "file.hasLink", "file.hasProperty",
	"contains", "containsAll", "containsAny", "startsWith", "endsWith", "isEmpty", "lower", "upper", "trim", "replace", "split", "slice", "repeat", "title",
	"join", "unique", "sort", "reverse", "flat",
	"toFixed", "round", "floor", "ceil", "abs",
	"format", "date", "isTruthy", "isType", "toString", "matches (of a regular expression)",
}

func (e *env) args(ns []node) ([]any, error) {
	out := make([]any, len(ns))
	for i, n := range ns {
		v, err := e.eval(n)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (e *env) call(c call) (any, error) {
	switch fn := c.fn.(type) {
	case ident:
		if fn.name == "if" {
			if len(c.args) < 2 {
				return nil, fmt.Errorf("if() takes a condition and a value")
			}
			cond, err := e.eval(c.args[0])
			if err != nil {
				return nil, err
			}
			if truthy(cond) {
				return e.eval(c.args[1])
			}
			if len(c.args) > 2 {
				return e.eval(c.args[2])
			}
			return nil, nil
		}
		a, err := e.args(c.args)
		if err != nil {
			return nil, err
		}
		return e.global(fn.name, a)
	case member:
		x, err := e.eval(fn.x)
		if err != nil {
			return nil, err
		}
		a, err := e.args(c.args)
		if err != nil {
			return nil, err
		}
		return e.method(x, fn.name, a)
	}
	return nil, unsupported("only functions and methods can be called")
}

func (e *env) global(name string, a []any) (any, error) {
	switch name {
	case "now":
		return e.now, nil
	case "today":
		return day(e.now), nil
	case "date":
		if len(a) == 1 {
			if t, ok := toDate(a[0]); ok {
				return t, nil
			}
		}
		return nil, nil
	case "number":
		if len(a) == 1 {
			if f, ok := toNumber(a[0]); ok {
				return f, nil
			}
		}
		return nil, nil
	case "list":
		if len(a) == 1 {
			if l, ok := a[0].([]any); ok {
				return l, nil
			}
			if a[0] == nil {
				return []any{}, nil
			}
		}
		return a, nil
	case "link":
		if len(a) >= 1 {
			return toString(a[0]), nil
		}
		return nil, nil
	case "max", "min":
		var best any
		for _, v := range a {
			if v == nil {
				continue
			}
			if best == nil || name == "max" && compare(v, best) > 0 || name == "min" && compare(v, best) < 0 {
				best = v
			}
		}
		return best, nil
	}
	return nil, unsupported("the function %s() is not supported natively (supported: %s)", name, strings.Join(Functions, ", "))
}

func (e *env) method(x any, name string, a []any) (any, error) {
	if _, ok := x.(fileObj); ok {
		return e.fileMethod(name, a)
	}
	switch name {
	case "isTruthy":
		return truthy(x), nil
	case "isEmpty":
		return !truthy(x) || isEmptyCollection(x), nil
	case "toString":
		return toString(x), nil
	case "isType":
		return len(a) == 1 && typeName(x) == toString(a[0]), nil
	}
	switch x := x.(type) {
	case *regex:
		if name == "matches" && len(a) == 1 {
			return x.re.MatchString(toString(a[0])), nil
		}
	case string:
		return stringMethod(x, name, a)
	case float64, int64, int:
		f, _ := toNumber(x)
		return numberMethod(f, name, a)
	case []any:
		if err := e.budget.Spend(len(x)); err != nil {
			return nil, err
		}
		return listMethod(x, name, a, e.budget)
	case time.Time:
		return dateMethod(x, name, a)
	case nil:
		return nil, nil
	}
	return nil, unsupported("the method .%s() of a %s is not supported natively (supported: %s)", name, typeName(x), strings.Join(Functions, ", "))
}

func (e *env) fileMethod(name string, a []any) (any, error) {
	f := e.f
	switch name {
	case "hasTag":
		for _, want := range a {
			w := strings.ToLower(strings.TrimPrefix(toString(want), "#"))
			for _, t := range f.Tags {
				t = strings.ToLower(t)
				if t == w || strings.HasPrefix(t, w+"/") {
					return true, nil
				}
			}
		}
		return false, nil
	case "inFolder":
		if len(a) != 1 {
			return nil, fmt.Errorf("file.inFolder() takes a folder")
		}
		folder := strings.Trim(toString(a[0]), "/")
		return folder == "" || strings.HasPrefix(f.Path, folder+"/"), nil
	case "hasLink":
		if len(a) != 1 {
			return nil, fmt.Errorf("file.hasLink() takes a file")
		}
		want := strings.TrimSuffix(strings.Trim(toString(a[0]), "[]"), ".md")
		for _, l := range f.Links {
			if strings.TrimSuffix(l, ".md") == want || note.Stem(l) == want {
				return true, nil
			}
		}
		return false, nil
	case "hasProperty":
		if len(a) != 1 {
			return nil, fmt.Errorf("file.hasProperty() takes a name")
		}
		for _, p := range f.Props {
			if p.Key == toString(a[0]) {
				return true, nil
			}
		}
		return false, nil
	}
	return nil, unsupported("file.%s() is not supported natively (supported: hasTag, inFolder, hasLink, hasProperty)", name)
}

func (e *env) binary(b binary) (any, error) {
	l, err := e.eval(b.l)
	if err != nil {
		return nil, err
	}
	switch b.op {
	case "&&":
		if !truthy(l) {
			return false, nil
		}
		r, err := e.eval(b.r)
		return truthy(r), err
	case "||":
		if truthy(l) {
			return true, nil
		}
		r, err := e.eval(b.r)
		return truthy(r), err
	}
	r, err := e.eval(b.r)
	if err != nil {
		return nil, err
	}
	switch b.op {
	case "==":
		return equal(l, r), nil
	case "!=":
		return !equal(l, r), nil
	case "<", "<=", ">", ">=":
		if l == nil || r == nil {
			return false, nil
		}
		c := compare(l, r)
		return b.op == "<" && c < 0 || b.op == "<=" && c <= 0 || b.op == ">" && c > 0 || b.op == ">=" && c >= 0, nil
	}
	return arith(b.op, l, r)
}
