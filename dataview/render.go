package dataview

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"time"
)

// The Markdown Dataview's queryMarkdown writes, with default settings.

func escapeTable(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// tableLiteral is a cell: lists and objects as HTML lists, the rest as text.
func tableLiteral(v any) string { return escapeTable(rawTableLiteral(v)) }

func rawTableLiteral(v any) string {
	switch x := v.(type) {
	case []any:
		var b strings.Builder
		b.WriteString("<ul>")
		for _, e := range x {
			b.WriteString("<li>" + tableLiteral(e) + "</li>")
		}
		b.WriteString("</ul>")
		return b.String()
	case *Object:
		var b strings.Builder
		b.WriteString("<ul>")
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			b.WriteString("<li><b>" + tableLiteral(k) + "</b>: " + tableLiteral(e) + "</li>")
		}
		b.WriteString("</ul>")
		return b.String()
	}
	return toText(v, false)
}

func padRight(s, pad string, n int) string {
	if l := utf16Len(s); l < n {
		return s + strings.Repeat(pad, n-l)
	}
	return s
}

func markdownTable(headers []string, rows [][]any) string {
	widths := make([]int, len(headers))
	for i, h := range headers {
		widths[i] = utf16Len(escapeTable(h))
	}
	cells := make([][]string, len(rows))
	for r, row := range rows {
		for c, v := range row {
			t := tableLiteral(v)
			cells[r] = append(cells[r], t)
			if c < len(widths) {
				widths[c] = max(widths[c], utf16Len(t))
			}
		}
	}
	var b strings.Builder
	line := func(parts []string) {
		b.WriteString("| " + strings.Join(parts, " | ") + " |\n")
	}
	hs := make([]string, len(headers))
	seps := make([]string, len(headers))
	for i, h := range headers {
		hs[i] = padRight(escapeTable(h), " ", widths[i])
		seps[i] = padRight("", "-", widths[i])
	}
	line(hs)
	line(seps)
	for _, row := range cells {
		ps := make([]string, len(row))
		for i, c := range row {
			w := 0
			if i < len(widths) {
				w = widths[i]
			}
			ps[i] = padRight(c, " ", w)
		}
		line(ps)
	}
	return b.String()
}

func markdownList(items []any) string { return markdownListRec(items, 0) }

func markdownListRec(v any, depth int) string {
	switch x := v.(type) {
	case []any:
		var b strings.Builder
		if depth != 0 {
			b.WriteString("\n")
		}
		for _, e := range x {
			b.WriteString(strings.Repeat("    ", depth) + "- ")
			b.WriteString(markdownListRec(e, depth))
			b.WriteString("\n")
		}
		return b.String()
	case *Object:
		var b strings.Builder
		if depth != 0 {
			b.WriteString("\n")
		}
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			b.WriteString(strings.Repeat("    ", depth) + "- " + k + ": ")
			b.WriteString(markdownListRec(e, depth))
			b.WriteString("\n")
		}
		return b.String()
	case *ListPair:
		return toText(x.Key, false) + ": " + markdownListRec(x.Value, depth+1)
	}
	return toText(v, false)
}

func itemID(o *Object) string {
	p, _ := o.Get("path")
	l, _ := o.Get("line")
	return toText(p, false) + ":" + toText(l, false)
}

func parentID(o *Object) (string, bool) {
	p, _ := o.Get("path")
	par, ok := o.Get("parent")
	if !ok || par == nil {
		return "", false
	}
	return toText(p, false) + ":" + toText(par, false), true
}

func children(o *Object) []*Object {
	c, _ := o.Get("children")
	var out []*Object
	for _, x := range asList(c) {
		if xo, ok := x.(*Object); ok {
			out = append(out, xo)
		}
	}
	return out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// nestItems drops the items already shown as another's child.
func nestItems(raw []*Object) []*Object {
	known := map[string]bool{}
	for _, e := range raw {
		known[itemID(e)] = true
	}
	var walk func(*Object)
	walk = func(o *Object) {
		known[itemID(o)] = true
		for _, c := range children(o) {
			walk(c)
		}
	}
	for _, e := range raw {
		walk(e)
	}
	var roots []*Object
	for _, e := range raw {
		if pid, ok := parentID(e); !ok || !known[pid] {
			roots = append(roots, e)
		}
	}
	return roots
}

func markdownTasks(v any, depth int) string {
	var b strings.Builder
	switch x := v.(type) {
	case []group:
		for _, g := range x {
			b.WriteString(strings.Repeat("#", depth+1) + " " + toText(g.Key, false) + "\n\n")
			b.WriteString(markdownTasks(g.Rows, depth+1))
		}
	case []*Object:
		for _, e := range nestItems(x) {
			b.WriteString(strings.Repeat("    ", depth) + "- ")
			t, _ := e.Get("text")
			text := strings.ReplaceAll(toText(t, false), "\n", " ")
			if isTask, _ := e.Get("task"); isTask == true {
				st, _ := e.Get("status")
				b.WriteString("[" + toText(st, false) + "] ")
			}
			b.WriteString(text + "\n")
			b.WriteString(markdownTasks(children(e), depth+1))
		}
	}
	return b.String()
}

// JSON is an answer's value in the normalised form: links as objects,
// dates as ISO text, durations as ISO 8601, tasks with their children.
func JSON(v any) any { return norm(v, 0) }

// ordered is a JSON object that keeps its keys' order.
type ordered struct {
	keys []string
	vals []any
}

func (o *ordered) set(k string, v any) { o.keys = append(o.keys, k); o.vals = append(o.vals, v) }

func (o *ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func normLink(l *Link) *ordered {
	o := &ordered{}
	o.set("path", l.Path)
	if l.Type != "" && l.Type != "file" {
		o.set("type", l.Type)
	}
	if l.Type != "file" {
		o.set("subpath", l.Subpath)
	}
	if l.Display != "" {
		o.set("display", l.Display)
	}
	if l.Embed {
		o.set("embed", true)
	}
	return o
}

func norm(v any, depth int) any {
	if depth > 64 {
		return "<too deep>"
	}
	switch x := v.(type) {
	case nil:
		return nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return jsNumber(x)
		}
		return x
	case string, bool:
		return x
	case time.Time:
		return isoDate(x)
	case Duration:
		return x.ISO()
	case *Link:
		return normLink(x)
	case *ListPair:
		o := &ordered{}
		o.set("key", norm(x.Key, depth+1))
		o.set("value", norm(x.Value, depth+1))
		return o
	case *ExternalLink:
		return toText(x, false)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = norm(e, depth+1)
		}
		return out
	case *Lambda:
		return "<function>"
	case *Object:
		o := &ordered{}
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			o.set(k, norm(e, depth+1))
		}
		return o
	case [][]any:
		out := make([]any, len(x))
		for i, r := range x {
			out[i] = norm(r, depth+1)
		}
		return out
	case []group:
		out := make([]any, len(x))
		for i, g := range x {
			o := &ordered{}
			o.set("key", norm(g.Key, depth+1))
			o.set("rows", norm(g.Rows, depth+1))
			out[i] = o
		}
		return out
	case []*Object:
		out := make([]any, len(x))
		for i, t := range x {
			out[i] = normTask(t, depth+1)
		}
		return out
	}
	return toText(v, false)
}

func normTask(t *Object, depth int) *ordered {
	get := func(k string) any { v, _ := t.Get(k); return v }
	o := &ordered{}
	o.set("path", norm(get("path"), depth))
	o.set("line", norm(get("line"), depth))
	o.set("text", norm(get("text"), depth))
	isTask := get("task") == true
	o.set("task", isTask)
	if isTask {
		o.set("status", norm(get("status"), depth))
		o.set("completed", truthy(get("completed")))
	} else {
		o.set("status", nil)
		o.set("completed", nil)
	}
	kids := []any{}
	for _, c := range children(t) {
		kids = append(kids, normTask(c, depth+1))
	}
	o.set("children", kids)
	return o
}

// Len is how many rows, items, tasks (or groups of them) or days the
// answer holds; 1 for an inline value.
func (r *Result) Len() int {
	switch x := r.Values.(type) {
	case [][]any:
		return len(x)
	case []any:
		if r.Type == "inline" {
			return 1
		}
		return len(x)
	case []*Object:
		return len(x)
	case []group:
		return len(x)
	}
	return 1
}

// Truncate keeps the first n rows (items, tasks or groups, days) and
// writes the Markdown of those.
func (r *Result) Truncate(n int) {
	if n >= r.Len() || r.Type == "inline" {
		return
	}
	switch x := r.Values.(type) {
	case [][]any:
		r.Values = x[:n]
		r.Markdown = markdownTable(r.Headers, x[:n])
	case []any:
		r.Values = x[:n]
		if r.Type == "list" {
			r.Markdown = markdownList(x[:n])
		}
	case []*Object:
		r.Values = x[:n]
		r.Markdown = markdownTasks(x[:n], 0)
	case []group:
		r.Values = x[:n]
		r.Markdown = markdownTasks(x[:n], 0)
	}
}
