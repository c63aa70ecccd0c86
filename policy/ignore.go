package policy

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// IgnoreFile is the vault's own list of paths to hide, in its folder. Its
// name starts with '.', so no tool can read or change it.
const IgnoreFile = ".mcpignore"

// ParseIgnore reads an ignore file in .gitignore syntax: one pattern per
// line; blank lines and lines starting with # are skipped; "!" shows again
// what an earlier line hid, and the last matching line decides; a pattern
// ending in "/" matches folders only; a pattern with a "/" at its start or
// in its middle is anchored at the vault's root, and one without matches at
// any depth. A "\" escapes a leading "#" or "!".
func ParseIgnore(data []byte) ([]Rule, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var rules []Rule
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" || line[0] == '#' {
			continue
		}
		r := Rule{Glob: line, Source: fmt.Sprintf("%s line %d", IgnoreFile, n+1)}
		pat := line
		switch {
		case pat[0] == '!':
			r.negate, pat = true, pat[1:]
		case strings.HasPrefix(pat, `\#`), strings.HasPrefix(pat, `\!`):
			pat = pat[1:]
		}
		if strings.HasSuffix(pat, "/") {
			r.dirOnly, pat = true, strings.TrimRight(pat, "/")
		}
		anchored := strings.Contains(pat, "/")
		pat = strings.TrimLeft(pat, "/")
		if pat == "" {
			return nil, fmt.Errorf("%s: %q names no path (write ** to hide the whole vault)", r.Source, line)
		}
		if !anchored && !strings.HasPrefix(pat, "**") {
			pat = "**/" + pat
		}
		r.pattern = fold(pat)
		if !doublestar.ValidatePattern(r.pattern) {
			return nil, fmt.Errorf("%s: %q is not a valid pattern (check its brackets and braces)", r.Source, line)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// Live is a vault's policy: the configured one with the vault's ignore
// file, which is read again when it changes, so a line the user adds
// applies to the next call without a restart.
type Live struct {
	base *Policy
	file string

	mu     sync.Mutex
	mod    time.Time
	size   int64
	found  bool
	readAt time.Time
	cur    *Policy
}

// Watch returns base extended with the ignore file in the vault folder dir.
func Watch(base *Policy, dir string) *Live {
	if base == nil {
		base = &Policy{}
	}
	return &Live{base: base, file: filepath.Join(dir, IgnoreFile)}
}

// racyWindow is how long after its modification time the ignore file is
// read again on every call: a change within one timestamp tick leaves the
// time as it was.
const racyWindow = 2 * time.Second

// Current is the policy in force now. It costs one stat of the ignore
// file; the same *Policy is returned until the file changes.
func (l *Live) Current() *Policy {
	l.mu.Lock()
	defer l.mu.Unlock()
	fi, err := os.Stat(l.file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if l.cur == nil || l.found {
			l.found, l.cur = false, l.base
		}
		return l.cur
	case err != nil:
		l.found, l.cur = false, l.base.with(nil, fmt.Errorf("%s cannot be read (%v)", IgnoreFile, err))
		return l.cur
	}
	if l.cur != nil && l.found && fi.ModTime().Equal(l.mod) && fi.Size() == l.size && l.readAt.Sub(l.mod) >= racyWindow {
		return l.cur
	}
	now := time.Now()
	data, err := os.ReadFile(l.file)
	var rules []Rule
	if err == nil {
		rules, err = ParseIgnore(data)
	} else {
		err = fmt.Errorf("%s cannot be read (%v)", IgnoreFile, err)
	}
	l.found, l.mod, l.size, l.readAt = true, fi.ModTime(), fi.Size(), now
	if l.cur != nil && err == nil && l.cur.broken == nil && sameRules(l.cur.ignore, rules) {
		return l.cur
	}
	l.cur = l.base.with(rules, err)
	return l.cur
}

// with is p with an ignore file's rules, or broken by err.
func (p *Policy) with(ignore []Rule, err error) *Policy {
	q := *p
	q.ignore, q.broken = ignore, err
	return &q
}

func sameRules(a, b []Rule) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
