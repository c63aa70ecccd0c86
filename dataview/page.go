package dataview

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// fieldMap is a key → values map that keeps its keys' insertion order,
// as Dataview's Map does. A note has few fields: slices searched in
// order cost far less memory than a map per note (and per list item).
type fieldMap struct {
	keys []string
	vals [][]any
}

func newFieldMap() *fieldMap { return &fieldMap{} }

func (m *fieldMap) index(k string) int { return slices.Index(m.keys, k) }

func (m *fieldMap) add(k string, v ...any) {
	i := m.index(k)
	if i < 0 {
		m.keys = append(m.keys, k)
		m.vals = append(m.vals, nil)
		i = len(m.keys) - 1
	}
	m.vals[i] = append(m.vals[i], v...)
}

// get is k's values, nil when k is not a key.
func (m *fieldMap) get(k string) ([]any, bool) {
	if m == nil {
		return nil, false
	}
	if i := m.index(k); i >= 0 {
		return m.vals[i], true
	}
	return nil, false
}

func (m *fieldMap) merge(o *fieldMap) {
	for i, k := range o.keys {
		m.add(k, o.vals[i]...)
	}
}

func (m *fieldMap) has(k string) bool { return m.index(k) >= 0 }

func (m *fieldMap) len() int {
	if m == nil {
		return 0
	}
	return len(m.keys)
}

// ListItem is one list item or task of a page, as Dataview keeps it.
type ListItem struct {
	symbol    string
	link      *Link
	section   *Link
	text      string
	tags      []string
	line      int
	lineCount int
	list      int
	links     []*Link
	pos       mdPos
	parent    int // -1 for none
	children  []int
	blockID   string
	fields    *fieldMap
	task      *taskInfo
}

type taskInfo struct {
	status                             string
	checked, completed, fullyCompleted bool
}

// PageMeta is what Dataview extracts from one Markdown file.
type PageMeta struct {
	Path        string
	Ctime       time.Time
	Mtime       time.Time
	Size        int64
	day         *time.Time
	fields      []string // final field keys in order
	fieldVals   []any    // their values, or where src keeps them:
	valAt       []int32
	keys        []string // when decoded: "file", then fields (the same array)
	tags        []string // exact tags, with #
	aliases     []string
	links       []*Link // frontmatter links first (nFM of them), then body links, then embeds
	nFM         int
	lists       []*ListItem
	frontmatter *Object
	// src, when set, is the compact page the links, tags, frontmatter
	// and lists are decoded from, each when first asked for.
	src                         *Page
	loc                         *time.Location
	names                       map[string]string
	gotHead, gotFront, gotLists bool
}

// objectKeys are the keys of the page's object: "file", then the fields
// but one of that name.
func (p *PageMeta) objectKeys() []string {
	if p.keys != nil && !slices.Contains(p.fields, "file") {
		return p.keys
	}
	keys := make([]string, 1, len(p.fields)+1)
	keys[0] = "file"
	for _, k := range p.fields {
		if k != "file" {
			keys = append(keys, k)
		}
	}
	return keys
}

// fieldValue is the value of the i-th field.
func (p *PageMeta) fieldValue(i int) any {
	if p.valAt != nil {
		return p.src.valueAt(p.valAt[i], p.loc, p.names)
	}
	return p.fieldVals[i]
}

func (p *PageMeta) head() {
	if p.src != nil && !p.gotHead {
		p.links, p.nFM, p.tags = p.src.head()
		p.gotHead = true
	}
}

// Links are the page's links: frontmatter's, body's, embeds.
func (p *PageMeta) Links() []*Link { p.head(); return p.links }

// Tags are the page's tags as written, with #.
func (p *PageMeta) Tags() []string { p.head(); return p.tags }

// Lists are the page's list items.
func (p *PageMeta) Lists() []*ListItem {
	if p.src != nil && !p.gotLists {
		p.lists, p.gotLists = p.src.listsOf(p.loc, p.names), true
	}
	return p.lists
}

// Frontmatter is the frontmatter as YAML gave it.
func (p *PageMeta) Frontmatter() *Object {
	if p.src != nil && !p.gotFront {
		p.frontmatter, p.gotFront = p.src.frontOf(p.loc, p.names), true
	}
	return p.frontmatter
}

// FileStat is what the vault says of a file besides its text.
type FileStat struct {
	Ctime, Mtime time.Time
	Size         int64
}

// parsePage is Dataview's parsePage over the note's structure.
func (g *grammar) parsePage(path, text string, st FileStat) *PageMeta {
	md := buildCache(text)
	p := &PageMeta{Path: path, Ctime: st.Ctime, Mtime: st.Mtime, Size: st.Size}
	fields := newFieldMap()
	tagSet := orderedSet{}
	aliasSet := orderedSet{}
	for _, t := range md.tags {
		tagSet.add(t.tag)
	}
	p.frontmatter = NewObject()
	if md.frontmatter != nil {
		raw := yamlValue(md.frontmatter, 0)
		p.frontmatter = raw.(*Object)
		for _, t := range extractTags(p.frontmatter) {
			tagSet.add(t)
		}
		for _, a := range extractAliases(p.frontmatter) {
			aliasSet.add(a)
		}
		for _, k := range p.frontmatter.Keys() {
			if k == "position" {
				continue
			}
			v, _ := p.frontmatter.Get(k)
			fields.add(k, g.parseFrontmatter(v))
		}
	}
	for _, l := range md.fmLinks {
		p.links = append(p.links, inferLink(l.link, false, l.display))
	}
	p.nFM = len(p.links)
	byLine := map[int][]*Link{}
	for _, embed := range []bool{false, true} {
		for _, l := range md.links {
			if l.embed != embed {
				continue
			}
			link := inferLink(l.link, embed, l.display)
			p.links = append(p.links, link)
			byLine[l.line] = append(byLine[l.line], link)
		}
	}
	lines := strings.Split(text, "\n")
	lists, extra := g.parseLists(path, lines, md, byLine)
	mdFields := newFieldMap()
	mdFields.merge(extra)
	skip := map[int]bool{}
	for _, it := range lists {
		for i := 0; i < it.lineCount; i++ {
			skip[it.line+i] = true
		}
	}
	lineFields(md, lines, skip, func(f inlineField, _ int) { mdFields.add(f.key, g.parseInlineValue(f.value)) })
	fields.merge(mdFields)
	p.tags = tagSet.list
	p.aliases = aliasSet.list
	p.lists = lists
	p.fields, p.fieldVals = finalizeFields(fields)
	p.day = g.findDate(path, fields)
	return p
}

type orderedSet struct {
	list []string
	seen map[string]bool
}

func (s *orderedSet) add(x string) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if !s.seen[x] {
		s.seen[x] = true
		s.list = append(s.list, x)
	}
}

// yamlValue is a YAML node as JavaScript's yaml package reads it (YAML
// 1.2: dates stay text).
func yamlValue(n *yaml.Node, depth int) any {
	if depth > 64 {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return yamlValue(n.Content[0], depth+1)
	case yaml.AliasNode:
		return yamlValue(n.Alias, depth+1)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			out = append(out, yamlValue(c, depth+1))
		}
		return out
	case yaml.MappingNode:
		o := NewObject()
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			key := k.Value
			if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!null" {
				key = ""
			}
			o.Set(key, yamlValue(n.Content[i+1], depth+1))
		}
		return o
	}
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		return strings.ToLower(n.Value) == "true"
	case "!!int":
		if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return float64(i)
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return f
		}
	case "!!float":
		switch strings.ToLower(n.Value) {
		case ".inf", "+.inf":
			return math.Inf(1)
		case "-.inf":
			return math.Inf(-1)
		case ".nan":
			return math.NaN()
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
			return f
		}
	}
	return n.Value
}

// parseFrontmatter is Dataview's: text that reads as a date, duration or
// link becomes one.
func (g *grammar) parseFrontmatter(v any) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = g.parseFrontmatter(x)
		}
		return out
	case *Object:
		o := NewObject()
		for _, k := range v.Keys() {
			x, _ := v.Get(k)
			o.Set(k, g.parseFrontmatter(x))
		}
		return o
	case string:
		if d, err := parseAll(g.date, v); err == nil {
			return d
		}
		if d, err := parseAll(g.duration, v); err == nil {
			return d
		}
		if l, err := parseAll(g.embedLink, v); err == nil {
			return l
		}
	}
	return v
}

var tagSplit = regexp.MustCompile(`[,\s]+`)

// splitTagOrAlias is splitFrontmatterTagOrAlias.
func splitTagOrAlias(v any, on *regexp.Regexp) []string {
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		var out []string
		for _, x := range v {
			if truthyJS(x) {
				out = append(out, splitTagOrAlias(x, on)...)
			}
		}
		return out
	}
	var out []string
	for _, t := range on.Split(jsString(v), -1) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// truthyJS is JavaScript's !!x for a YAML value.
func truthyJS(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0 && !math.IsNaN(v)
	case string:
		return v != ""
	}
	return true
}

// jsString is "" + v for a YAML value.
func jsString(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return v
	case float64:
		return jsNumber(v)
	case bool:
		return strconv.FormatBool(v)
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			if x != nil {
				parts[i] = jsString(x)
			}
		}
		return strings.Join(parts, ",")
	}
	return "[object Object]"
}

func extractTags(fm *Object) []string {
	var out []string
	for _, k := range fm.Keys() {
		if l := strings.ToLower(k); l == "tags" || l == "tag" {
			v, _ := fm.Get(k)
			for _, t := range splitTagOrAlias(v, tagSplit) {
				if !strings.HasPrefix(t, "#") {
					t = "#" + t
				}
				out = append(out, t)
			}
		}
	}
	return out
}

var commaSplit = regexp.MustCompile(`,`)

func extractAliases(fm *Object) []string {
	var out []string
	for _, k := range fm.Keys() {
		if l := strings.ToLower(k); l != "alias" && l != "aliases" {
			continue
		}
		v, _ := fm.Get(k)
		if !truthyJS(v) {
			continue
		}
		if arr, ok := v.([]any); ok {
			for _, x := range arr {
				out = append(out, strings.TrimSpace(jsString(x)))
			}
			continue
		}
		out = append(out, splitTagOrAlias(v, commaSplit)...)
	}
	return out
}

// finalizeFields adds each key's canonical form and squashes lists of
// one value.
func finalizeFields(fields *fieldMap) ([]string, []any) {
	norm := newFieldMap()
	for i, k := range fields.keys {
		nk := canonicalVarName(k)
		if nk == "" || fields.has(nk) {
			continue
		}
		norm.add(nk, fields.vals[i]...)
	}
	all := newFieldMap()
	all.merge(fields)
	all.merge(norm)
	out := make([]any, len(all.keys))
	for i, vs := range all.vals {
		if len(vs) == 1 {
			out[i] = vs[0]
		} else {
			out[i] = slices.Clone(vs)
		}
	}
	return slices.Clip(all.keys), out
}

// findDate is a page's day: a date or day field holding a date, else a
// date in the file's name.
func (g *grammar) findDate(path string, fields *fieldMap) *time.Time {
	for _, k := range fields.keys {
		if l := strings.ToLower(k); l != "date" && l != "day" {
			continue
		}
		if vs, _ := fields.get(k); len(vs) > 0 {
			if d, ok := vs[0].(time.Time); ok {
				return &d
			}
		}
	}
	if d, ok := extractDate(fileTitle(path), g.loc); ok {
		return &d
	}
	return nil
}

// inlineField is one [key:: value], (key:: value), Key:: value or task
// emoji field.
type inlineField struct {
	key, value        string
	start, startValue int
	end               int
	wrapping          string // "[", "(", "emoji-shorthand", or "" for a whole line
}

var wrappers = map[byte]byte{'[': ']', '(': ')'}

func findClosing(line string, start int, open, close byte) (string, int, bool) {
	nesting := 0
	escaped := false
	for i := start; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			escaped = !escaped
			continue
		}
		if escaped {
			escaped = false
			continue
		}
		if c == open {
			nesting++
		} else if c == close {
			nesting--
		}
		if nesting < 0 {
			return strings.TrimSpace(line[start:i]), i + 1, true
		}
	}
	return "", 0, false
}

func findSpecific(line string, start int) (inlineField, bool) {
	open := line[start]
	sep := strings.Index(line[start+1:], "::")
	if sep < 0 {
		return inlineField{}, false
	}
	sep += start + 1
	key := strings.TrimSpace(line[start+1 : sep])
	if strings.ContainsAny(key, "[]()") {
		return inlineField{}, false
	}
	val, end, ok := findClosing(line, sep+2, open, wrappers[open])
	if !ok {
		return inlineField{}, false
	}
	return inlineField{key: key, value: val, start: start, startValue: sep + 2, end: end, wrapping: string(open)}, true
}

var emojiTaskFields = []struct {
	re  *regexp.Regexp
	key string
}{
	{regexp.MustCompile(`\x{2795}\s*(\d{4}-\d{2}-\d{2})`), "created"},
	{regexp.MustCompile(`\x{1F6EB}\s*(\d{4}-\d{2}-\d{2})`), "start"},
	{regexp.MustCompile(`[\x{23F3}\x{231B}]\s*(\d{4}-\d{2}-\d{2})`), "scheduled"},
	{regexp.MustCompile(`(?:\x{1F4C5}|\x{1F4C6}|\x{1F5D3}\x{FE0F}?)\s*(\d{4}-\d{2}-\d{2})`), "due"},
	{regexp.MustCompile(`\x{2705}\s*(\d{4}-\d{2}-\d{2})`), "completion"},
}

// extractInlineFields finds the bracketed fields of a line (and, for a
// task, its emoji dates), leftmost first, overlaps dropped.
func extractInlineFields(line string, taskFields bool) []inlineField {
	var fs []inlineField
	for _, w := range []byte{'[', '('} {
		i := strings.IndexByte(line, w)
		for i >= 0 {
			f, ok := findSpecific(line, i)
			if !ok {
				j := strings.IndexByte(line[i+1:], w)
				if j < 0 {
					break
				}
				i += 1 + j
				continue
			}
			fs = append(fs, f)
			j := strings.IndexByte(line[f.end:], w)
			if j < 0 {
				break
			}
			i = f.end + j
		}
	}
	if taskFields && hasNonASCII(line) { // the markers are emoji
		for _, e := range emojiTaskFields {
			if m := e.re.FindStringSubmatchIndex(line); m != nil {
				fs = append(fs, inlineField{key: e.key, value: line[m[2]:m[3]], start: m[0], startValue: m[0] + 1, end: m[1], wrapping: "emoji-shorthand"})
			}
		}
	}
	slices.SortStableFunc(fs, func(a, b inlineField) int { return a.start - b.start })
	var out []inlineField
	for _, f := range fs {
		if len(out) == 0 || out[len(out)-1].end < f.start {
			out = append(out, f)
		}
	}
	return out
}

func hasNonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return false
}

var fullLineKeyPrefix = regexp.MustCompile(`^[^0-9\w\p{L}]*`)
var fullLineKeyPart = regexp.MustCompile(`^[0-9\p{L}\w\s_/-]+`)
var fullLineKeySuffix = regexp.MustCompile("^[_*~`]*")

// extractFullLineField reads "Key:: value" spanning the line.
func extractFullLineField(text string) (inlineField, bool) {
	sep := strings.Index(text, "::")
	if sep < 0 {
		return inlineField{}, false
	}
	raw := strings.TrimSpace(text[:sep])
	i := len(fullLineKeyPrefix.FindString(raw))
	var key strings.Builder
	for i < len(raw) {
		if j := emojiEnd(raw, i); j > i {
			key.WriteString(raw[i:j])
			i = j
			continue
		}
		m := fullLineKeyPart.FindString(raw[i:])
		if m == "" {
			break
		}
		key.WriteString(m)
		i += len(m)
	}
	i += len(fullLineKeySuffix.FindString(raw[i:]))
	if i != len(raw) {
		return inlineField{}, false
	}
	return inlineField{key: key.String(), value: strings.TrimSpace(text[sep+2:]), startValue: sep + 2, end: len(text)}, true
}

// parseInlineValue types a field's text: empty is null; a date,
// duration, quoted text, tag, link, boolean, number or list of them is
// that; anything else stays text.
func (g *grammar) parseInlineValue(v string) any {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	// Fast paths, each giving what the grammar gives: text no typed
	// value can start with, a plain number, a plain day.
	if !strings.ContainsRune(`0123456789-"#![tfTFn`, rune(v[0])) {
		return v
	}
	if plainNumber.MatchString(v) {
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	if plainDay.MatchString(v) {
		if t, ok := dateFromParts(g.loc, atoiDigits(v[:4]), atoiDigits(v[5:7]), atoiDigits(v[8:10]), 0, 0, 0, 0); ok {
			return t
		}
		return v
	}
	if x, err := parseAll(g.inlineField, v); err == nil {
		return x
	}
	return v
}

var (
	plainNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
	plainDay    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

var listItemRe = regexp.MustCompile(`^[\s>]*(\d+\.|\d+\)|\*|-|\+)\s*(\[.?\])?\s*(.*)$`)
var potentialTag = regexp.MustCompile(`#[^\s,;.:!?'"` + "`" + `()\[\]{}]+`)

func (g *grammar) itemTags(text string) []string {
	var s orderedSet
	for _, m := range potentialTag.FindAllString(text, -1) {
		if t, err := parseAll(g.tag, m); err == nil {
			s.add(t.(string))
		}
	}
	return s.list
}

func previousHeader(line int, hs []mdHeading) (string, bool) {
	if len(hs) == 0 || hs[0].line > line {
		return "", false
	}
	i := len(hs) - 1
	for i >= 0 && hs[i].line > line {
		i--
	}
	return hs[i].text, true
}

// listItem makes a ListItem of a raw item (nil when its first line is
// not an item's).
func (g *grammar) listItem(path string, lines []string, md *mdCache, raw *mdListItem, byLine map[int][]*Link) *ListItem {
	m := listItemRe.FindStringSubmatch(lines[raw.pos.startLine])
	if m == nil {
		return nil
	}
	parts := []string{strings.TrimSpace(m[3])}
	for l := raw.pos.startLine + 1; l <= raw.pos.endLine && l < len(lines); l++ {
		parts = append(parts, strings.TrimSpace(lines[l]))
	}
	withNL, noNL := strings.Join(parts, "\n"), strings.Join(parts, " ")
	listLine := -1
	for _, s := range md.sections {
		if s.kind == "list" && s.pos.startLine <= raw.pos.startLine && s.pos.endLine >= raw.pos.startLine {
			listLine = s.pos.startLine
			break
		}
	}
	section := FileLink(path)
	if h, ok := previousHeader(raw.pos.startLine, md.headings); ok {
		section = &Link{Path: path, Subpath: normalizeHeaderForLink(h), Type: "header"}
	}
	closest := section
	if raw.id != "" {
		closest = &Link{Path: path, Subpath: raw.id, Type: "block"}
	}
	var links []*Link
	for l := raw.pos.startLine; l <= raw.pos.endLine; l++ {
		links = append(links, byLine[l]...)
	}
	it := &ListItem{
		symbol: m[1], link: closest, section: section, text: withNL, tags: g.itemTags(noNL),
		line: raw.pos.startLine, lineCount: raw.pos.endLine - raw.pos.startLine + 1, list: listLine,
		links: links, pos: raw.pos, parent: -1, blockID: raw.id,
	}
	if raw.parent >= 0 && raw.parent != it.line {
		it.parent = raw.parent
	}
	if raw.task != nil {
		s := *raw.task
		done := s == "X" || s == "x"
		it.task = &taskInfo{status: s, checked: s != "" && s != " ", completed: done, fullyCompleted: done}
	}
	addField := func(k string, v any) {
		if it.fields == nil {
			it.fields = newFieldMap()
		}
		it.fields.add(k, v)
	}
	for _, f := range extractInlineFields(noNL, true) {
		addField(f.key, g.parseInlineValue(f.value))
	}
	if raw.task == nil && it.fields.len() == 0 {
		if f, ok := extractFullLineField(noNL); ok {
			addField(f.key, g.parseInlineValue(f.value))
		}
	}
	return it
}

// parseLists is Dataview's parseLists: items, their children, task
// state, and the fields of plain items (which belong to the page).
func (g *grammar) parseLists(path string, lines []string, md *mdCache, byLine map[int][]*Link) ([]*ListItem, *fieldMap) {
	cache := map[int]*ListItem{}
	var order []int
	for _, raw := range md.listItems {
		it := g.listItem(path, lines, md, raw, byLine)
		if it == nil {
			continue
		}
		if _, dup := cache[it.line]; !dup {
			order = append(order, it.line)
		}
		cache[it.line] = it
	}
	slices.Sort(order) // a JavaScript object's integer keys iterate in order
	literals := newFieldMap()
	for _, ln := range order {
		it := cache[ln]
		if p, ok := cache[it.parent]; ok && it.parent >= 0 {
			p.children = append(p.children, it.line)
		}
		if it.task == nil {
			if it.fields != nil {
				literals.merge(it.fields)
			}
			continue
		}
		// A task is fully completed when it and every task below it are.
		for cur := it; cur != nil; cur = cache[cur.parent] {
			if cur.task != nil {
				cur.task.fullyCompleted = cur.task.fullyCompleted && it.task.completed
			}
			if cur.parent < 0 {
				break
			}
		}
	}
	out := make([]*ListItem, len(order))
	for i, ln := range order {
		out[i] = cache[ln]
	}
	return out, literals
}

// lineFields finds the fields of the lines Dataview reads outside list
// items (skip): the bracketed ones of a line, else the line as Key:: value.
func lineFields(md *mdCache, lines []string, skip map[int]bool, found func(f inlineField, line int)) {
	for _, s := range md.sections {
		if s.kind == "list" || s.kind == "ruling" {
			continue
		}
		for ln := s.pos.startLine; ln <= s.pos.endLine && ln < len(lines); ln++ {
			line := lines[ln]
			if skip[ln] || len(line) > 32768 || !strings.Contains(line, "::") {
				continue
			}
			line = strings.TrimSpace(line)
			if fs := extractInlineFields(line, false); len(fs) > 0 {
				for _, f := range fs {
					found(f, ln)
				}
			} else if f, ok := extractFullLineField(line); ok {
				found(f, ln)
			}
		}
	}
}

// InlineField is one inline field of a note, where it is written.
type InlineField struct {
	Key string
	// Value is typed as Dataview types it (number, date, link, list…).
	Value any
	Line  int    // 1-based
	Form  string // "line" (Key:: value), "[]", "()", or "emoji" (a task's 📅 and the like)
	Task  bool   // written on a task, whose field it is rather than the page's
}

// ReadInlineFields lists a note's inline fields as Dataview reads them:
// the lines and list items it reads them from, in the note's order.
func ReadInlineFields(text string, loc *time.Location) []InlineField {
	g := newGrammar(loc, time.Now)
	md := buildCache(text)
	lines := strings.Split(text, "\n")
	var out []InlineField
	add := func(f inlineField, line int, task bool) {
		form := "line"
		switch f.wrapping {
		case "[":
			form = "[]"
		case "(":
			form = "()"
		case "emoji-shorthand":
			form = "emoji"
		}
		out = append(out, InlineField{Key: f.key, Value: g.parseInlineValue(f.value), Line: line + 1, Form: form, Task: task})
	}
	skip := map[int]bool{}
	for _, raw := range md.listItems {
		it := g.listItem("", lines, md, raw, nil)
		if it == nil {
			continue
		}
		for i := 0; i < it.lineCount; i++ {
			skip[it.line+i] = true
		}
		parts := strings.Split(it.text, "\n")
		noNL := strings.Join(parts, " ")
		fs := extractInlineFields(noNL, true)
		for _, f := range fs {
			add(f, it.line, it.task != nil)
		}
		if it.task == nil && len(fs) == 0 {
			if f, ok := extractFullLineField(noNL); ok {
				add(f, it.line, false)
			}
		}
	}
	lineFields(md, lines, skip, func(f inlineField, ln int) { add(f, ln, false) })
	slices.SortStableFunc(out, func(a, b InlineField) int { return a.Line - b.Line })
	return out
}
