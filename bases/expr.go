package bases

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// node is a parsed expression.
type node interface{}

type (
	lit   struct{ v any }
	ident struct{ name string }
	unary struct {
		op string
		x  node
	}
	binary struct {
		op   string
		l, r node
	}
	member struct {
		x    node
		name string
	}
	index struct{ x, i node }
	call  struct {
		fn   node
		args []node
	} // fn is an ident or a member
	array  struct{ items []node }
	object struct {
		keys []string
		vals []node
	}
)

// parse reads one expression of the Bases language: JavaScript-like
// literals, property names, operators (|| && ! == != < <= > >= + - * / %),
// members, indexes and calls.
func parse(src string) (node, error) {
	if len(src) > maxExprLen {
		return nil, errBound("an expression of %d bytes is over the limit of %d", len(src), maxExprLen)
	}
	p := &parser{src: src}
	if err := p.lex(); err != nil {
		return nil, err
	}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q in %q", p.toks[p.i].s, src)
	}
	return n, nil
}

type token struct {
	kind byte // 'n' number, 's' string, 'i' identifier, 'o' operator
	s    string
	v    any
}

type parser struct {
	src   string
	toks  []token
	i     int
	depth int // nesting under way (maxDepth)
}

// enter counts one more level of nesting; leave is deferred by the
// caller.
func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return errBound("the expression nests deeper than %d levels in %.40q…", maxDepth, p.src)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// lex cuts p.src into tokens, each kind read by a lexer of its own that
// returns where the next token starts.
func (p *parser) lex() error {
	s := p.src
	for i := 0; i < len(s); {
		c := rune(s[i])
		var err error
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			i, err = p.lexNumber(i)
		case c == '"' || c == '\'':
			i, err = p.lexString(i)
		case c == '_' || c == '$' || c >= 0x80 || unicode.IsLetter(c):
			i = p.lexIdent(i)
		case c == '/' && p.operandNext():
			// A regular expression literal, /:/g, where a value is
			// expected (elsewhere / divides).
			i, err = p.lexRegex(i)
		default:
			i, err = p.lexOperator(i)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// lexNumber reads the number at i. A dot followed by no digit is a
// method's: 123.toString().
func (p *parser) lexNumber(i int) (int, error) {
	s := p.src
	j := i
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9') {
		j++
	}
	f, err := strconv.ParseFloat(s[i:j], 64)
	if err != nil {
		return j, fmt.Errorf("%q is not a number", s[i:j])
	}
	p.toks = append(p.toks, token{kind: 'n', s: s[i:j], v: f})
	return j, nil
}

// lexString reads the string quoted at i, a backslash escaping the next
// character.
func (p *parser) lexString(i int) (int, error) {
	s := p.src
	quote := s[i]
	var b strings.Builder
	j := i + 1
	for ; j < len(s) && s[j] != quote; j++ {
		if s[j] == '\\' && j+1 < len(s) {
			j++
		}
		b.WriteByte(s[j])
	}
	if j >= len(s) {
		return j, fmt.Errorf("a string is not closed in %q", s)
	}
	p.toks = append(p.toks, token{kind: 's', s: s[i : j+1], v: b.String()})
	return j + 1, nil
}

// lexIdent reads the name at i.
func (p *parser) lexIdent(i int) int {
	s := p.src
	j := i
	for j < len(s) && (s[j] == '_' || s[j] == '$' || s[j] >= 0x80 || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
		j++
	}
	p.toks = append(p.toks, token{kind: 'i', s: s[i:j]})
	return j
}

// lexRegex reads the regular expression literal at i, with its flags.
func (p *parser) lexRegex(i int) (int, error) {
	s := p.src
	j := i + 1
	inClass := false
	for ; j < len(s) && (s[j] != '/' || inClass); j++ {
		switch s[j] {
		case '\\':
			j++
		case '[':
			inClass = true
		case ']':
			inClass = false
		}
	}
	if j >= len(s) {
		return j, fmt.Errorf("a regular expression is not closed in %q", s)
	}
	k := j + 1
	for k < len(s) && strings.ContainsRune("dgimsuvy", rune(s[k])) {
		k++
	}
	re, err := newRegex(s[i+1:j], s[j+1:k])
	if err != nil {
		return k, err
	}
	p.toks = append(p.toks, token{kind: 'r', s: s[i:k], v: re})
	return k, nil
}

// lexOperator reads the operator or punctuation at i, the longest that
// matches; === and !== read as == and !=.
func (p *parser) lexOperator(i int) (int, error) {
	s := p.src
	c := rune(s[i])
	op := ""
	for _, o := range []string{"==", "!=", "<=", ">=", "&&", "||", "===", "!=="} {
		if strings.HasPrefix(s[i:], o) && len(o) > len(op) {
			op = o
		}
	}
	if op == "" {
		if !strings.ContainsRune("+-*/%<>!().,[]{}:", c) {
			return i, fmt.Errorf("unexpected %q in %q", string(c), s)
		}
		op = string(c)
	}
	if op == "===" || op == "!==" {
		op = op[:2]
		i++
	}
	p.toks = append(p.toks, token{kind: 'o', s: op})
	return i + len(op), nil
}

// operandNext reports whether the lexer stands where a value is expected:
// at the start, or after an operator or an opening bracket or comma.
func (p *parser) operandNext() bool {
	if len(p.toks) == 0 {
		return true
	}
	t := p.toks[len(p.toks)-1]
	return t.kind == 'o' && t.s != ")" && t.s != "]" && t.s != "}"
}

func (p *parser) peek(op string) bool {
	return p.i < len(p.toks) && p.toks[p.i].kind == 'o' && p.toks[p.i].s == op
}

func (p *parser) take(op string) bool {
	if p.peek(op) {
		p.i++
		return true
	}
	return false
}

func (p *parser) binaryLevel(ops []string, next func() (node, error)) (node, error) {
	l, err := next()
	if err != nil {
		return nil, err
	}
	for {
		matched := ""
		for _, op := range ops {
			if p.peek(op) {
				matched = op
				break
			}
		}
		if matched == "" {
			return l, nil
		}
		p.i++
		r, err := next()
		if err != nil {
			return nil, err
		}
		l = binary{matched, l, r}
	}
}

func (p *parser) or() (node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.binaryLevel([]string{"||"}, p.and)
}
func (p *parser) and() (node, error) { return p.binaryLevel([]string{"&&"}, p.cmp) }
func (p *parser) cmp() (node, error) {
	return p.binaryLevel([]string{"==", "!=", "<=", ">=", "<", ">"}, p.add)
}
func (p *parser) add() (node, error) { return p.binaryLevel([]string{"+", "-"}, p.mul) }
func (p *parser) mul() (node, error) { return p.binaryLevel([]string{"*", "/", "%"}, p.unary) }

func (p *parser) unary() (node, error) {
	for _, op := range []string{"!", "-"} {
		if p.take(op) {
			if err := p.enter(); err != nil {
				return nil, err
			}
			x, err := p.unary()
			p.leave()
			return unary{op, x}, err
		}
	}
	return p.postfix()
}

func (p *parser) postfix() (node, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.take("."):
			if p.i >= len(p.toks) || p.toks[p.i].kind != 'i' {
				return nil, fmt.Errorf("a name must follow '.' in %q", p.src)
			}
			x = member{x, p.toks[p.i].s}
			p.i++
		case p.take("["):
			i, err := p.or()
			if err != nil {
				return nil, err
			}
			if !p.take("]") {
				return nil, fmt.Errorf("']' missing in %q", p.src)
			}
			x = index{x, i}
		case p.take("("):
			args, err := p.list(")")
			if err != nil {
				return nil, err
			}
			x = call{x, args}
		default:
			return x, nil
		}
	}
}

func (p *parser) list(end string) ([]node, error) {
	var out []node
	if p.take(end) {
		return out, nil
	}
	for {
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if p.take(end) {
			return out, nil
		}
		if !p.take(",") {
			return nil, fmt.Errorf("',' or %q missing in %q", end, p.src)
		}
	}
}

func (p *parser) primary() (node, error) {
	if p.i >= len(p.toks) {
		return nil, fmt.Errorf("%q ends too soon", p.src)
	}
	t := p.toks[p.i]
	p.i++
	switch t.kind {
	case 'n', 's', 'r':
		return lit{t.v}, nil
	case 'i':
		switch t.s {
		case "true":
			return lit{true}, nil
		case "false":
			return lit{false}, nil
		case "null", "undefined":
			return lit{nil}, nil
		}
		return ident{t.s}, nil
	}
	switch t.s {
	case "(":
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if !p.take(")") {
			return nil, fmt.Errorf("')' missing in %q", p.src)
		}
		return n, nil
	case "[":
		items, err := p.list("]")
		return array{items}, err
	case "{":
		return p.objectLit()
	}
	return nil, fmt.Errorf("unexpected %q in %q", t.s, p.src)
}

// objectLit reads an object literal after its "{": {} or {key: value, …},
// a key a name or a string.
func (p *parser) objectLit() (node, error) {
	var o object
	if p.take("}") {
		return o, nil
	}
	for {
		if p.i >= len(p.toks) || p.toks[p.i].kind != 'i' && p.toks[p.i].kind != 's' {
			return nil, fmt.Errorf("a key must come in an object in %q", p.src)
		}
		k := p.toks[p.i].s
		if p.toks[p.i].kind == 's' {
			k = p.toks[p.i].v.(string)
		}
		p.i++
		if !p.take(":") {
			return nil, fmt.Errorf("':' missing after %q in %q", k, p.src)
		}
		v, err := p.or()
		if err != nil {
			return nil, err
		}
		o.keys, o.vals = append(o.keys, k), append(o.vals, v)
		if p.take("}") {
			return o, nil
		}
		if !p.take(",") {
			return nil, fmt.Errorf("',' or '}' missing in %q", p.src)
		}
	}
}
