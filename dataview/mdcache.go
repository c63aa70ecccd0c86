package dataview

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// What Obsidian's metadata cache gives Dataview for a note: frontmatter,
// headings, sections, list items, links, embeds and tags, each with its
// line. A line-based reading of CommonMark with Obsidian's additions
// (wikilinks, %% comments %%, callouts, block ids).

type mdPos struct{ startLine, startCol, endLine, endCol int }

type mdSection struct {
	kind string
	pos  mdPos
}

type mdHeading struct {
	text  string
	level int
	line  int
}

type mdListItem struct {
	pos    mdPos
	parent int // the parent item's line, or minus the list's first line
	task   *string
	id     string
}

type mdLink struct {
	link    string // the target as written, with its subpath
	display string
	line    int
	embed   bool
}

type mdTag struct {
	tag  string
	line int
}

type mdCache struct {
	frontmatter *yaml.Node // a mapping, or nil
	fmLinks     []mdLink
	sections    []mdSection
	headings    []mdHeading
	listItems   []*mdListItem
	links       []mdLink // links and embeds, in the order of the note
	tags        []mdTag
}

var (
	fenceRe     = regexp.MustCompile("^( {0,3})(`{3,}|~{3,})(.*)$")
	headingRe   = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+|$)(.*)$`)
	hrRe        = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	listRe      = regexp.MustCompile(`^([ \t]*)([-*+]|\d{1,9}[.)])(?:([ \t]+)(.*)|)$`)
	quoteRe     = regexp.MustCompile(`^ {0,3}>`)
	quoteStrip  = regexp.MustCompile(`^ {0,3}> ?`)
	setextRe    = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	tableDelim  = regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)
	blockIDRe   = regexp.MustCompile(`(?:^|\s)\^([a-zA-Z0-9-]+)\s*$`)
	wikiRe      = regexp.MustCompile(`(!?)\[\[([^\[\]]*?)\]\]`)
	mdLinkRe    = regexp.MustCompile(`(!?)\[([^\[\]]*)\]\(\s*(<[^>]*>|[^\s()]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)
	urlSchemeRe = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.\-]*:`)
	closeFence  = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})\\s*$")
	closeFenceI = regexp.MustCompile("^\\s*(`{3,}|~{3,})\\s*$")
	taskRe      = regexp.MustCompile(`^\[(.)\](\s|$)`)
	digitsOnly  = regexp.MustCompile(`^[0-9]+$`)
	fmTagChar   = regexp.MustCompile(`^[^\s!"#$%&'()*+,.:;<=>?@\[\\\]^` + "`" + `{|}~]+`)
)

func indentCols(s string) int {
	col := 0
	for _, ch := range s {
		switch ch {
		case '\t':
			col += 4 - col%4
		case ' ':
			col++
		default:
			return col
		}
	}
	return col
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

type mdEntry struct {
	line int
	text string
	col  int
}

type inlineLine struct {
	line int
	text string
}

type mdBuilder struct {
	lines   []string
	c       *mdCache
	inlines []inlineLine
}

// buildCache reads a note's structure.
func buildCache(text string) *mdCache {
	b := &mdBuilder{lines: strings.Split(text, "\n"), c: &mdCache{}}
	start := 0
	if len(b.lines) > 0 && strings.TrimRight(b.lines[0], " \t\r") == "---" {
		for j := 1; j < len(b.lines); j++ {
			if strings.TrimRight(b.lines[j], " \t\r") == "---" {
				b.frontmatter(strings.Join(b.lines[1:j], "\n"))
				b.c.sections = append(b.c.sections, mdSection{"yaml", mdPos{0, 0, j, len(b.lines[j])}})
				start = j + 1
				break
			}
		}
	}
	var entries []mdEntry
	for l := start; l < len(b.lines); l++ {
		entries = append(entries, mdEntry{l, strings.TrimSuffix(b.lines[l], "\r"), 0})
	}
	b.parseBlocks(entries, true)
	b.scanInline()
	slices.SortStableFunc(b.c.sections, func(x, y mdSection) int { return x.pos.startLine - y.pos.startLine })
	slices.SortStableFunc(b.c.listItems, func(x, y *mdListItem) int { return x.pos.startLine - y.pos.startLine })
	return b.c
}

// maxFrontmatter bounds the YAML read for one note.
const maxFrontmatter = 256 << 10

func (b *mdBuilder) frontmatter(y string) {
	if len(y) > maxFrontmatter {
		return
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(y), &doc) != nil || len(doc.Content) == 0 {
		return
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return
	}
	b.c.frontmatter = m
	var visit func(n *yaml.Node)
	visit = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.ScalarNode:
			if n.ShortTag() != "!!str" {
				return
			}
			for _, w := range wikiRe.FindAllStringSubmatch(n.Value, -1) {
				target, alias, hasAlias := splitWiki(w[2])
				d := alias
				if !hasAlias {
					d = wikiDisplay(target)
				}
				b.c.fmLinks = append(b.c.fmLinks, mdLink{link: target, display: d})
			}
		case yaml.SequenceNode:
			for _, x := range n.Content {
				visit(x)
			}
		}
	}
	for i := 1; i < len(m.Content); i += 2 {
		visit(m.Content[i])
	}
}

func splitWiki(raw string) (string, string, bool) {
	target, alias, has := strings.Cut(raw, "|")
	target = strings.TrimSuffix(target, `\`)
	return strings.TrimSpace(target), alias, has
}

func wikiDisplay(target string) string {
	if !strings.Contains(target, "#") {
		return target
	}
	parts := strings.Split(target, "#")
	var subs []string
	for _, p := range parts[1:] {
		if p != "" {
			subs = append(subs, p)
		}
	}
	if parts[0] != "" {
		return strings.Join(append([]string{parts[0]}, subs...), " > ")
	}
	return strings.Join(subs, " > ")
}

func (b *mdBuilder) lineLen(l int) int { return len(strings.TrimSuffix(b.lines[l], "\r")) }

func (b *mdBuilder) addSection(kind string, sl, el int) {
	b.c.sections = append(b.c.sections, mdSection{kind, mdPos{sl, 0, el, b.lineLen(el)}})
}

func (b *mdBuilder) inline(e mdEntry) { b.inlines = append(b.inlines, inlineLine{e.line, e.text}) }

// blockRule reads the block at entries[i] if it is its kind, and says
// where the next block starts.
type blockRule func(b *mdBuilder, entries []mdEntry, i int, top bool) (int, bool)

var blockRules []blockRule

func init() { // set here: a quote's blocks are read by the same rules
	blockRules = []blockRule{fencedBlock, mathBlock, commentBlock, htmlCommentBlock, headingBlock, ruleBlock, quoteBlock, listBlock, indentedBlock}
}

func (b *mdBuilder) parseBlocks(entries []mdEntry, top bool) {
	for i := 0; i < len(entries); {
		if isBlank(entries[i].text) {
			i++
			continue
		}
		next, ok := 0, false
		for _, rule := range blockRules {
			if next, ok = rule(b, entries, i, top); ok {
				break
			}
		}
		if !ok {
			next = b.paragraph(entries, i, top)
		}
		i = next
	}
}

// lead is a line's first byte after its indentation (0 for none).
func lead(s string) byte {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' {
			return s[i]
		}
	}
	return 0
}

// mayBe says whether a line can open a block of its kind, by its first
// byte: the regular expressions run only where one can match.
func mayFence(s string) bool   { c := lead(s); return c == '`' || c == '~' }
func mayHeading(s string) bool { return lead(s) == '#' }
func mayRule(s string) bool    { c := lead(s); return c == '-' || c == '*' || c == '_' }
func mayQuote(s string) bool   { return lead(s) == '>' }
func mayList(s string) bool {
	c := lead(s)
	return c == '-' || c == '*' || c == '+' || (c >= '0' && c <= '9')
}

func fencedBlock(b *mdBuilder, entries []mdEntry, i int, top bool) (int, bool) {
	e := entries[i]
	if !mayFence(e.text) {
		return 0, false
	}
	fm := fenceRe.FindStringSubmatch(e.text)
	if fm == nil || (fm[2][0] == '`' && strings.Contains(fm[3], "`")) {
		return 0, false
	}
	fence := fm[2]
	j := i + 1
	for j < len(entries) {
		if cm := closeFence.FindStringSubmatch(entries[j].text); cm != nil && cm[1][0] == fence[0] && len(cm[1]) >= len(fence) {
			break
		}
		j++
	}
	end := min(j, len(entries)-1)
	if top {
		b.addSection("code", e.line, entries[end].line)
	}
	return end + 1, true
}

func mathBlock(b *mdBuilder, entries []mdEntry, i int, top bool) (int, bool) {
	e := entries[i]
	if !strings.HasPrefix(strings.TrimLeft(e.text, " "), "$$") || indentCols(e.text) > 3 {
		return 0, false
	}
	end := i
	if tt := strings.TrimSpace(e.text); !(len(tt) > 2 && strings.HasSuffix(tt, "$$")) {
		end = b.until(entries, i, "$$")
	}
	if top {
		b.addSection("math", e.line, entries[end].line)
	}
	return end + 1, true
}

func commentBlock(b *mdBuilder, entries []mdEntry, i int, top bool) (int, bool) {
	tt := strings.TrimLeft(entries[i].text, " \t")
	if !strings.HasPrefix(tt, "%%") || strings.Contains(tt[2:], "%%") {
		return 0, false
	}
	j := b.until(entries, i, "%%")
	if top {
		b.addSection("comment", entries[i].line, entries[j].line)
	}
	return j + 1, true
}

func htmlCommentBlock(b *mdBuilder, entries []mdEntry, i int, top bool) (int, bool) {
	t := entries[i].text
	if !strings.HasPrefix(strings.TrimLeft(t, " \t"), "<!--") || strings.Contains(t, "-->") {
		return 0, false
	}
	j := b.until(entries, i, "-->")
	if top {
		b.addSection("html", entries[i].line, entries[j].line)
	}
	return j + 1, true
}

func headingBlock(b *mdBuilder, entries []mdEntry, i int, top bool) (int, bool) {
	e := entries[i]
	if !mayHeading(e.text) {
		return 0, false
	}
	hm := headingRe.FindStringSubmatch(e.text)
	if hm == nil {
		return 0, false
	}
	if top {
		b.c.headings = append(b.c.headings, mdHeading{strings.TrimSpace(trailingHashes(hm[2])), len(hm[1]), e.line})
		b.addSection("heading", e.line, e.line)
	}
	b.inline(e)
	return i + 1, true
}

func ruleBlock(b *mdBuilder, entries []mdEntry, i int, top bool) (int, bool) {
	if !mayRule(entries[i].text) || !hrRe.MatchString(entries[i].text) {
		return 0, false
	}
	if top {
		b.addSection("thematicBreak", entries[i].line, entries[i].line)
	}
	return i + 1, true
}

func quoteBlock(b *mdBuilder, entries []mdEntry, i int, top bool) (int, bool) {
	if !mayQuote(entries[i].text) || !quoteRe.MatchString(entries[i].text) {
		return 0, false
	}
	j := i
	var inner []mdEntry
	for j < len(entries) && quoteRe.MatchString(entries[j].text) {
		m := quoteStrip.FindString(entries[j].text)
		inner = append(inner, mdEntry{entries[j].line, entries[j].text[len(m):], entries[j].col + len(m)})
		j++
	}
	if top {
		kind := "blockquote"
		if strings.HasPrefix(strings.TrimLeft(inner[0].text, " \t"), "[!") {
			kind = "callout"
		}
		b.addSection(kind, entries[i].line, entries[j-1].line)
	}
	b.parseBlocks(inner, false)
	return j, true
}

func listBlock(b *mdBuilder, entries []mdEntry, i int, top bool) (int, bool) {
	if t := entries[i].text; !mayList(t) || !listRe.MatchString(t) || hrRe.MatchString(t) {
		return 0, false
	}
	return b.parseList(entries, i, top), true
}

func indentedBlock(b *mdBuilder, entries []mdEntry, i int, top bool) (int, bool) {
	if indentCols(entries[i].text) < 4 {
		return 0, false
	}
	j, last := i, i
	for j < len(entries) && (isBlank(entries[j].text) || indentCols(entries[j].text) >= 4) {
		if !isBlank(entries[j].text) {
			last = j
		}
		j++
	}
	if top {
		b.addSection("code", entries[i].line, entries[last].line)
	}
	return last + 1, true
}

func (b *mdBuilder) until(entries []mdEntry, i int, marker string) int {
	j := i + 1
	for j < len(entries) && !strings.Contains(entries[j].text, marker) {
		j++
	}
	return min(j, len(entries)-1)
}

var closingHashes = regexp.MustCompile(`[ \t]+#+[ \t]*$`)
var onlyHashes = regexp.MustCompile(`^#+[ \t]*$`)

func trailingHashes(s string) string {
	s = closingHashes.ReplaceAllString(s, "")
	return onlyHashes.ReplaceAllString(s, "")
}

// interrupts says whether a line ends the paragraph above it: a fence,
// heading, quote or rule, or a list item with text (an ordered one only
// when it starts at 1).
func interrupts(tj string, isTable bool) bool {
	c := lead(tj)
	if (mayFence(tj) && fenceRe.MatchString(tj)) || (c == '#' && headingRe.MatchString(tj)) || c == '>' && quoteRe.MatchString(tj) || (mayRule(tj) && hrRe.MatchString(tj)) {
		return true
	}
	if !mayList(tj) || isTable {
		return false
	}
	lj := listRe.FindStringSubmatch(tj)
	if lj == nil || strings.TrimSpace(lj[4]) == "" || indentCols(tj) >= 4 {
		return false
	}
	if lj[2][0] >= '0' && lj[2][0] <= '9' {
		return atoiDigits(lj[2][:len(lj[2])-1]) == 1
	}
	return true
}

func (b *mdBuilder) paragraph(entries []mdEntry, i int, top bool) int {
	n := len(entries)
	e := entries[i]
	t := e.text
	j := i + 1
	isTable := strings.Contains(t, "|") && j < n && tableDelim.MatchString(entries[j].text) && strings.Contains(entries[j].text, "-")
	setext, setextLevel := -1, 0
	for j < n {
		tj := entries[j].text
		if isBlank(tj) {
			break
		}
		c := lead(tj)
		if !isTable && (c == '=' || c == '-') && setextRe.MatchString(tj) {
			setext = j
			setextLevel = 2
			if strings.TrimSpace(tj)[0] == '=' {
				setextLevel = 1
			}
			break
		}
		if interrupts(tj, isTable) {
			break
		}
		j++
	}
	if setext >= 0 {
		var parts []string
		for k := i; k < setext; k++ {
			parts = append(parts, strings.TrimSpace(entries[k].text))
			b.inline(entries[k])
		}
		if top {
			b.c.headings = append(b.c.headings, mdHeading{strings.Join(parts, " "), setextLevel, e.line})
			b.c.sections = append(b.c.sections, mdSection{"heading", mdPos{e.line, 0, entries[setext].line, len(b.lines[entries[setext].line])}})
		}
		return setext + 1
	}
	end := j - 1
	for k := i; k <= end; k++ {
		b.inline(entries[k])
	}
	if top {
		kind := "paragraph"
		if isTable {
			kind = "table"
		} else if strings.HasPrefix(t, "[^") && footnoteRe.MatchString(t) {
			kind = "footnoteDefinition"
		}
		b.addSection(kind, e.line, entries[end].line)
	}
	return j
}

type stackItem struct {
	item       *mdListItem
	contentCol int
}

func listKind(m []string) string {
	if m[2][0] >= '0' && m[2][0] <= '9' {
		return "ord" + m[2][len(m[2])-1:]
	}
	return m[2]
}

// listState is a list being read: the open items and where their
// content starts.
type listState struct {
	kind          string
	start         int
	stack         []stackItem
	current       *mdListItem
	topContentCol int
}

// item reads a list item line; false when it ends the list.
func (b *mdBuilder) item(ls *listState, e mdEntry, m []string, first bool) bool {
	ind := indentCols(e.text)
	for len(ls.stack) > 0 && ind < ls.stack[len(ls.stack)-1].contentCol {
		ls.stack = ls.stack[:len(ls.stack)-1]
	}
	if len(ls.stack) == 0 && listKind(m) != ls.kind && !first {
		return false
	}
	spaces := 1
	if m[3] != "" {
		spaces = indentCols(m[1]+m[2]+m[3]) - indentCols(m[1]+m[2])
	}
	if spaces > 4 || spaces == 0 {
		spaces = 1
	}
	contentCol := ind + len(m[2]) + spaces
	parent := -ls.start
	if len(ls.stack) > 0 {
		parent = ls.stack[len(ls.stack)-1].item.pos.startLine
	}
	it := &mdListItem{pos: mdPos{e.line, e.col + len(m[1]), e.line, b.lineLen(e.line)}, parent: parent}
	if tm := taskRe.FindStringSubmatch(m[4]); tm != nil {
		st := tm[1]
		it.task = &st
	}
	b.c.listItems = append(b.c.listItems, it)
	b.inline(e)
	ls.stack = append(ls.stack, stackItem{it, contentCol})
	if len(ls.stack) == 1 {
		ls.topContentCol = contentCol
	}
	ls.current = it
	setBlockID(it, e.text)
	return true
}

// fenceInList skips a code block indented under an item; it says where
// the list goes on, or -1 when the line is no such fence.
func fenceInList(ls *listState, entries []mdEntry, j int) int {
	t := entries[j].text
	fm := fenceRe.FindStringSubmatch(strings.TrimLeft(t, " \t"))
	if fm == nil || len(ls.stack) == 0 || indentCols(t) < ls.stack[0].contentCol {
		return -1
	}
	k := j + 1
	for k < len(entries) {
		if cm := closeFenceI.FindStringSubmatch(entries[k].text); cm != nil && cm[1][0] == fm[2][0] && len(cm[1]) >= len(fm[2]) {
			break
		}
		k++
	}
	return min(k, len(entries)-1) + 1
}

func (b *mdBuilder) parseList(entries []mdEntry, i int, top bool) int {
	n := len(entries)
	ls := &listState{kind: listKind(listRe.FindStringSubmatch(entries[i].text)), start: entries[i].line, topContentCol: -1}
	lastNonBlank := i
	prevBlank := false
	for j := i; j < n; {
		e := entries[j]
		t := e.text
		ind := indentCols(t)
		if isBlank(t) {
			prevBlank, ls.current = true, nil
			j++
			continue
		}
		if m := listRe.FindStringSubmatch(t); m != nil && !hrRe.MatchString(t) && !(ind >= 4 && len(ls.stack) == 0) {
			if !b.item(ls, e, m, j == i) {
				break
			}
			prevBlank, lastNonBlank = false, j
			j++
			continue
		}
		if next := fenceInList(ls, entries, j); next >= 0 {
			j, lastNonBlank, ls.current, prevBlank = next, next-1, nil, false
			continue
		}
		if prevBlank {
			if len(ls.stack) == 0 || ind < ls.stack[0].contentCol {
				break
			}
			for len(ls.stack) > 0 && ind < ls.stack[len(ls.stack)-1].contentCol {
				ls.stack = ls.stack[:len(ls.stack)-1]
			}
			prevBlank, ls.current = false, nil
		} else if ind < max(ls.topContentCol, 0) && (headingRe.MatchString(t) || fenceRe.MatchString(t) || quoteRe.MatchString(t) || hrRe.MatchString(t)) {
			break
		} else if ls.current != nil {
			ls.current.pos.endLine, ls.current.pos.endCol = e.line, b.lineLen(e.line)
			setBlockID(ls.current, e.text)
		}
		b.inline(e)
		lastNonBlank = j
		j++
	}
	if top {
		b.addSection("list", ls.start, entries[lastNonBlank].line)
	}
	return lastNonBlank + 1
}

func setBlockID(item *mdListItem, text string) {
	if m := blockIDRe.FindStringSubmatch(text); m != nil {
		item.id = m[1]
	} else {
		item.id = ""
	}
}

// maskInline blanks code spans, %%comments%% and <!-- --> on a line,
// keeping columns.
var (
	footnoteRe    = regexp.MustCompile(`^\[\^[^\]]+\]:`)
	commentRe     = regexp.MustCompile(`%%.*?%%`)
	htmlCommentRe = regexp.MustCompile(`<!--.*?-->`)
)

func blankOut(m string) string { return strings.Repeat(" ", len(m)) }

// findWikilinks finds what (!?)\[\[([^\[\]]*?)\]\] matches, as
// FindAllStringSubmatchIndex gives it, without a regular expression:
// [[, then no bracket up to ]].
func findWikilinks(s string) [][]int {
	var out [][]int
	end := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '[' || s[i+1] != '[' {
			continue
		}
		j := i + 2
		for j < len(s) && s[j] != '[' && s[j] != ']' {
			j++
		}
		if j+1 >= len(s) || s[j] != ']' || s[j+1] != ']' {
			continue
		}
		start, bang := i, -1
		if i > end && i > 0 && s[i-1] == '!' {
			start, bang = i-1, i-1
		}
		m := []int{start, j + 2, start, start, i + 2, j}
		if bang >= 0 {
			m[3] = bang + 1
		}
		out = append(out, m)
		end = j + 2
		i = j + 1
	}
	return out
}

// blankSpans blanks the matches found (each m[0]:m[1]), keeping columns.
func blankSpans(s string, ms [][]int) string {
	b := []byte(s)
	for _, m := range ms {
		for i := m[0]; i < m[1]; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

func maskInline(line string) string {
	if !strings.ContainsAny(line, "`%<") {
		return line
	}
	out := []byte(line)
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] == '`' {
			j++
		}
		run := j - i
		found := -1
		for k := j; k < len(line); {
			if line[k] == '`' {
				m := k
				for m < len(line) && line[m] == '`' {
					m++
				}
				if m-k == run {
					found = k
					break
				}
				k = m
			} else {
				k++
			}
		}
		if found >= 0 {
			for p := i; p < found+run; p++ {
				out[p] = ' '
			}
			i = found + run
		} else {
			i = j
		}
	}
	s := string(out)
	if strings.Contains(s, "%%") {
		s = commentRe.ReplaceAllStringFunc(s, blankOut)
	}
	if strings.Contains(s, "<!--") {
		s = htmlCommentRe.ReplaceAllStringFunc(s, blankOut)
	}
	return s
}

// tagAt finds the tags of a line: # after the start or a space, not
// all digits.
func lineTags(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '#' || (i > 0 && !isSpaceByte(s[i-1])) {
			continue
		}
		m := fmTagChar.FindString(s[i+1:])
		if m == "" || digitsOnly.MatchString(m) {
			continue
		}
		out = append(out, "#"+m)
		i += len(m)
	}
	return out
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func (b *mdBuilder) scanInline() {
	slices.SortStableFunc(b.inlines, func(x, y inlineLine) int { return x.line - y.line })
	seen := map[int]bool{}
	for _, il := range b.inlines {
		if seen[il.line] {
			continue
		}
		seen[il.line] = true
		s := maskInline(il.text)
		type found struct {
			idx  int
			link mdLink
		}
		var fs []found
		hasWiki := strings.Contains(s, "[[")
		var wikis, mds [][]int
		if hasWiki {
			wikis = findWikilinks(s)
		}
		for _, m := range wikis {
			target, alias, has := splitWiki(s[m[4]:m[5]])
			d := alias
			if !has {
				d = wikiDisplay(target)
			}
			fs = append(fs, found{m[0], mdLink{link: target, display: d, line: il.line, embed: m[3] > m[2]}})
		}
		if len(wikis) > 0 {
			s = blankSpans(s, wikis)
		}
		hasMD := strings.Contains(s, "](")
		if hasMD {
			mds = mdLinkRe.FindAllStringSubmatchIndex(s, -1)
		}
		for _, m := range mds {
			target := s[m[6]:m[7]]
			if strings.HasPrefix(target, "<") {
				target = target[1 : len(target)-1]
			}
			if urlSchemeRe.MatchString(target) {
				continue
			}
			if d, err := url.PathUnescape(target); err == nil {
				target = d
			}
			fs = append(fs, found{m[0], mdLink{link: target, display: s[m[4]:m[5]], line: il.line, embed: m[3] > m[2]}})
		}
		if len(mds) > 0 {
			s = blankSpans(s, mds)
		}
		slices.SortStableFunc(fs, func(x, y found) int { return x.idx - y.idx })
		for _, f := range fs {
			b.c.links = append(b.c.links, f.link)
		}
		if strings.Contains(s, "#") {
			for _, t := range lineTags(s) {
				b.c.tags = append(b.c.tags, mdTag{t, il.line})
			}
		}
	}
}
