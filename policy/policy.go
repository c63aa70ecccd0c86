// Package policy decides which of a vault's paths this server may see and
// which it may change: allow and deny lists of path globs from the
// configuration (--read-paths, --write-paths, --deny-paths) and the vault's
// own ignore file (.mcpignore, in .gitignore syntax).
//
// A path the policy hides is not part of the vault as the server sees it:
// it is left out of every listing, search, tag and property count, link
// and backlink, and a call that names it exactly is refused with an error
// naming the rule. The package only decides; the engine (native) and the
// guard in front of every backend (internal/backend) apply its answers.
//
// Globs use github.com/bmatcuk/doublestar syntax (*, **, ?, [a-z], {a,b})
// on vault-relative paths. They match regardless of letter case and
// Unicode normalisation, because the file systems of macOS and Windows
// do: on them, "private/x.md" opens "Private/x.md", and a rule matched
// case-sensitively could be walked around. A glob that matches a folder
// covers everything inside it.
package policy

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/text/unicode/norm"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// Rule is one glob and where it came from.
type Rule struct {
	// Glob is the pattern as written.
	Glob string
	// Source names the setting or file line that gave it, for errors:
	// "--deny-paths", "OBSIDIAN_MCP_DENY_PATHS", ".mcpignore line 3".
	Source string

	pattern string // normalised for matching
	negate  bool   // an ignore-file "!" line: shows what earlier lines hid
	dirOnly bool   // an ignore-file line ending in "/": folders only
}

// String is the rule as errors name it.
func (r Rule) String() string {
	if strings.HasPrefix(r.Source, IgnoreFile) {
		return r.Source + ": " + r.Glob
	}
	return r.Source + " " + r.Glob
}

// fold makes a path or pattern comparable: NFC, lower case.
func fold(s string) string { return strings.ToLower(norm.NFC.String(s)) }

// ParseList reads a comma-separated list of globs given by source (a flag
// or environment variable). Commas inside braces belong to the glob
// ({Inbox,Daily}/**). Each glob is anchored at the vault's root; a
// leading "/" and a trailing "/" are dropped.
func ParseList(source, list string) ([]Rule, error) {
	var rules []Rule
	for _, g := range splitList(list) {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		clean := strings.Trim(g, "/")
		if clean == "" {
			return nil, fmt.Errorf("%q names no path; use ** for the whole vault", g)
		}
		if err := checkGlob(clean); err != nil {
			return nil, fmt.Errorf("%q %v", g, err)
		}
		if strings.Contains("/"+clean+"/", "/../") || strings.Contains("/"+clean+"/", "/./") {
			return nil, fmt.Errorf("%q: globs are vault-relative paths, without . or .. segments", g)
		}
		rules = append(rules, Rule{Glob: g, Source: source, pattern: fold(clean)})
	}
	return rules, nil
}

// checkGlob refuses what is not a glob, and backslashes used as folder
// separators (Windows habit): in a glob a backslash escapes the next
// character, so Private\** would match nothing the user meant.
func checkGlob(g string) error {
	for i := 0; i < len(g); i++ {
		if g[i] != '\\' {
			continue
		}
		if i+1 == len(g) || !strings.ContainsRune(`*?[]{}\!,`, rune(g[i+1])) {
			return fmt.Errorf("uses a backslash; separate folders with / (a backslash only escapes one of * ? [ ] { } \\)")
		}
		i++
	}
	if !doublestar.ValidatePattern(fold(g)) {
		return fmt.Errorf("is not a valid glob (check its brackets and braces)")
	}
	return nil
}

// splitList splits at commas outside braces and not escaped.
func splitList(s string) []string {
	var out []string
	depth, start, escaped := 0, 0, false
	for i, c := range s {
		if escaped {
			escaped = false
			continue
		}
		switch c {
		case '\\':
			escaped = true
		case '{':
			depth++
		case '}':
			depth = max(0, depth-1)
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// matches reports whether the rule matches the path, a folder of it, or
// (for a folder-only rule) one of its folders. isDir says the path itself
// is a folder.
func (r Rule) matches(p string, isDir bool) bool {
	for i := 0; ; {
		j := strings.IndexByte(p[i:], '/')
		end := len(p)
		if j >= 0 {
			end = i + j
		}
		folder := j >= 0 || isDir
		if folder || !r.dirOnly {
			if ok, _ := doublestar.Match(r.pattern, p[:end]); ok {
				return true
			}
		}
		if j < 0 {
			return false
		}
		i = end + 1
	}
}

// Policy is the rules in force. The zero Policy (or nil) hides nothing and
// allows every write.
type Policy struct {
	// Read, when not empty, is every path the server may see; all others
	// are hidden.
	Read []Rule
	// Write, when not empty, is every path the server may change (among
	// those it may see).
	Write []Rule
	// Deny hides the paths it matches.
	Deny []Rule

	// ignore is the vault's ignore file: the last line that matches a path
	// decides, and a "!" line shows it again (.gitignore's rule).
	ignore []Rule
	// broken, when set, is why the ignore file could not be used; every
	// path is then hidden rather than some shown that it meant to hide.
	broken error
	// real, when set, is the vault path a path leads to through symlinks
	// (see Resolving).
	real func(string) string
}

// Resolving returns p judging every path twice: as written, and as the
// file it reaches (real gives that file's vault path, or the path itself
// when no symlink is on the way). A symlink in a visible folder that leads
// into a hidden one (Public/s.md -> ../Private/s.md, or a folder link
// Public/p -> ../Private) then hides and protects what it leads to, as the
// rule meant; the policy matched the path as written before.
func (p *Policy) Resolving(real func(string) string) *Policy {
	if p == nil {
		p = &Policy{}
	}
	q := *p
	q.real = real
	return &q
}

// Hides reports whether the policy may hide any path.
func (p *Policy) Hides() bool {
	return p != nil && (len(p.Read) > 0 || len(p.Deny) > 0 || len(p.ignore) > 0 || p.broken != nil)
}

// Restricts reports whether the policy refuses any write.
func (p *Policy) Restricts() bool { return p.Hides() || p != nil && len(p.Write) > 0 }

// Hidden reports whether the file at p is hidden.
func (p *Policy) Hidden(path string) bool { return p.hiddenBy(path, false) != "" }

// HiddenFolder reports whether the folder at p is hidden as a path. A
// hidden folder may still hold visible files (with --read-paths
// Projects/Active/**, Projects is not visible but Projects/Active is).
func (p *Policy) HiddenFolder(path string) bool { return p.hiddenBy(path, true) != "" }

// hiddenBy names the rule that hides p, or the file p leads to, or "".
func (p *Policy) hiddenBy(path string, isDir bool) string {
	if !p.Hides() {
		return ""
	}
	if rule := p.hiddenAs(path, isDir); rule != "" {
		return rule
	}
	if real, ok := p.through(path); ok {
		if rule := p.hiddenAs(real, isDir); rule != "" {
			return rule + ", which " + path + " reaches through a symlink as " + real
		}
	}
	return ""
}

// through is the vault path p leads to through a symlink, when it does.
func (p *Policy) through(path string) (string, bool) {
	if p.real == nil {
		return "", false
	}
	real := p.real(path)
	return real, real != path
}

// hiddenAs names the rule that hides the path as written, or "".
func (p *Policy) hiddenAs(path string, isDir bool) string {
	if p.broken != nil {
		return p.broken.Error()
	}
	f := fold(path)
	for _, r := range p.Deny {
		if r.matches(f, isDir) {
			return r.String()
		}
	}
	var last *Rule
	for i := range p.ignore {
		if r := &p.ignore[i]; r.matches(f, isDir) {
			last = r
		}
	}
	if last != nil && !last.negate {
		return last.String()
	}
	if len(p.Read) > 0 && !anyMatch(p.Read, f, isDir) {
		return listString(p.Read)
	}
	return ""
}

func anyMatch(rules []Rule, f string, isDir bool) bool {
	for _, r := range rules {
		if r.matches(f, isDir) {
			return true
		}
	}
	return false
}

// listString names an allow list as a whole: "--read-paths Inbox/**,Daily/**".
func listString(rules []Rule) string {
	globs := make([]string, len(rules))
	for i, r := range rules {
		globs[i] = r.Glob
	}
	return rules[0].Source + " " + strings.Join(globs, ",")
}

// CheckRead refuses a hidden path with PERMISSION_DENIED naming the rule.
// It says nothing of whether the note exists.
func (p *Policy) CheckRead(path string) error {
	rule := p.hiddenBy(path, false)
	if rule == "" {
		return nil
	}
	return errors.E(errors.PermissionDenied, "%s is outside what this server may see (%s); nothing was read or changed", path, rule).
		With("rule", rule).With("path", path).
		WithHint("The user keeps these notes from assistants. Work with other notes, or ask the user to change the rule.")
}

// CheckWrite refuses a path the server may not change (hidden, or outside
// the write list) with PERMISSION_DENIED naming the rule.
func (p *Policy) CheckWrite(path string) error {
	if err := p.CheckRead(path); err != nil {
		return err
	}
	if p == nil || len(p.Write) == 0 {
		return nil
	}
	real, linked := p.through(path)
	if anyMatch(p.Write, fold(path), false) && (!linked || anyMatch(p.Write, fold(real), false)) {
		return nil
	}
	rule := listString(p.Write)
	if linked && anyMatch(p.Write, fold(path), false) {
		rule += ", which " + path + " leaves through a symlink to " + real
	}
	return errors.E(errors.PermissionDenied, "%s is outside the paths this server may change (%s); nothing was changed", path, rule).
		With("rule", rule).With("path", path).
		WithHint("Write to a note the rule allows, or ask the user to widen it.")
}

// Folders returns the folders (sorted) a listing may show: those the policy
// leaves visible, and those holding a visible file below them (with
// --read-paths Projects/Active/**, Projects is shown, to reach
// Projects/Active). visibleFiles are the files it shows.
func (p *Policy) Folders(folders, visibleFiles []string) []string {
	if !p.Hides() {
		return folders
	}
	holds := map[string]bool{}
	for _, f := range visibleFiles {
		for d := path.Dir(f); d != "." && !holds[d]; d = path.Dir(d) {
			holds[d] = true
		}
	}
	out := make([]string, 0, len(folders))
	for _, dir := range folders {
		if holds[dir] || !p.HiddenFolder(dir) {
			out = append(out, dir)
		}
	}
	return out
}

// Files returns the files p leaves visible, in order.
func (p *Policy) Files(files []string) []string {
	if !p.Hides() {
		return files
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		if !p.Hidden(f) {
			out = append(out, f)
		}
	}
	return out
}

// Err is why the vault's ignore file could not be used (it then hides
// every path), or nil.
func (p *Policy) Err() error {
	if p == nil {
		return nil
	}
	return p.broken
}

// Describe says what the policy does, for doctor and logs.
func (p *Policy) Describe() string {
	if !p.Restricts() {
		return "none: every note is visible and writable"
	}
	var parts []string
	for _, r := range p.Deny {
		parts = append(parts, "hides "+r.String())
	}
	if n := len(p.ignore); n > 0 {
		parts = append(parts, fmt.Sprintf("hides what %s says (%d patterns)", IgnoreFile, n))
	}
	if len(p.Read) > 0 {
		parts = append(parts, "shows only "+listString(p.Read))
	}
	if len(p.Write) > 0 {
		parts = append(parts, "writes only "+listString(p.Write))
	}
	if p.broken != nil {
		parts = append(parts, "hides everything: "+p.broken.Error())
	}
	return strings.Join(parts, "; ")
}
