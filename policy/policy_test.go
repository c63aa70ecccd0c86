package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func mustList(t *testing.T, source, list string) []Rule {
	t.Helper()
	rules, err := ParseList(source, list)
	if err != nil {
		t.Fatalf("ParseList(%q): %v", list, err)
	}
	return rules
}

func mustIgnore(t *testing.T, text string) []Rule {
	t.Helper()
	rules, err := ParseIgnore([]byte(text))
	if err != nil {
		t.Fatalf("ParseIgnore: %v", err)
	}
	return rules
}

func TestParseList(t *testing.T) {
	for _, tt := range []struct {
		list  string
		globs []string
		err   string
	}{
		{list: "Inbox/**,Daily/**", globs: []string{"Inbox/**", "Daily/**"}},
		{list: " Private/** , ", globs: []string{"Private/**"}},
		{list: "{Inbox,Daily}/**,Archive", globs: []string{"{Inbox,Daily}/**", "Archive"}},
		{list: `a\,b.md,c`, globs: []string{`a\,b.md`, "c"}},
		{list: "", globs: nil},
		{list: "Private/[", err: "not a valid glob"},
		{list: `Private\notes\**`, err: "backslash"},
		{list: "../x/**", err: "without . or .."},
		{list: "/", err: "names no path"},
	} {
		rules, err := ParseList("--deny-paths", tt.list)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseList(%q) error = %v, want %q", tt.list, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseList(%q): %v", tt.list, err)
			continue
		}
		var globs []string
		for _, r := range rules {
			globs = append(globs, r.Glob)
		}
		if strings.Join(globs, "|") != strings.Join(tt.globs, "|") {
			t.Errorf("ParseList(%q) = %q, want %q", tt.list, globs, tt.globs)
		}
	}
}

func TestHidden(t *testing.T) {
	deny := &Policy{Deny: mustList(t, "--deny-paths", "Private/**,*.secret.md,Journal")}
	read := &Policy{Read: mustList(t, "--read-paths", "Projects/Active/**,Inbox/**")}
	ignore := (&Policy{}).with(mustIgnore(t, "# comment\n\nsecret/\ndrafts/*.md\n!drafts/keep.md\n/Top.md\n*.tmp\n\\#hash.md\n"), nil)
	for _, tt := range []struct {
		name   string
		p      *Policy
		path   string
		folder bool
		hidden bool
	}{
		{"nil policy", nil, "Private/a.md", false, false},
		{"deny glob", deny, "Private/a.md", false, true},
		{"deny deep", deny, "Private/x/y/a.md", false, true},
		{"deny folder itself", deny, "Private", true, true},
		{"deny case folded", deny, "private/A.md", false, true},
		{"deny other", deny, "Public/a.md", false, false},
		{"deny prefix is not a folder", deny, "PrivateNotes/a.md", false, false},
		{"deny root-only star", deny, "x.secret.md", false, true},
		{"star does not cross folders", deny, "a/x.secret.md", false, false},
		{"deny plain folder name", deny, "Journal/2026/a.md", false, true},
		{"deny plain folder name anchored", deny, "Work/Journal/a.md", false, false},
		{"read list inside", read, "Projects/Active/a.md", false, false},
		{"read list outside", read, "Projects/Old/a.md", false, true},
		{"read list root note", read, "Home.md", false, true},
		{"read list ancestor folder is hidden as a path", read, "Projects", true, true},
		{"read list folder inside", read, "Inbox", true, false},
		{"ignore dir at any depth", ignore, "a/secret/b.md", false, true},
		{"ignore dir-only does not hide a file", ignore, "secret", false, false},
		{"ignore dir-only hides the folder", ignore, "secret", true, true},
		{"ignore anchored", ignore, "drafts/x.md", false, true},
		{"ignore anchored not deeper", ignore, "a/drafts/x.md", false, false},
		{"ignore negation", ignore, "drafts/keep.md", false, false},
		{"ignore leading slash anchors", ignore, "Top.md", false, true},
		{"ignore leading slash anchors only the root", ignore, "a/Top.md", false, false},
		{"ignore unanchored at any depth", ignore, "a/b/c.tmp", false, true},
		{"ignore escaped hash", ignore, "#hash.md", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.p.Hidden(tt.path)
			if tt.folder {
				got = tt.p.HiddenFolder(tt.path)
			}
			if got != tt.hidden {
				t.Errorf("hidden(%q, folder=%v) = %v, want %v", tt.path, tt.folder, got, tt.hidden)
			}
		})
	}
}

// TestUnicodeNormalisation: macOS may list a name decomposed (NFD) that
// the user typed composed (NFC); the rule must hide it either way.
func TestUnicodeNormalisation(t *testing.T) {
	p := &Policy{Deny: mustList(t, "--deny-paths", "Privé/**")}
	for _, path := range []string{"Privé/a.md", "Prive\u0301/a.md", "PRIVÉ/a.md"} {
		if !p.Hidden(path) {
			t.Errorf("%q is not hidden by Privé/**", path)
		}
	}
}

func TestChecksNameTheRule(t *testing.T) {
	p := &Policy{
		Deny:  mustList(t, "--deny-paths", "Private/**"),
		Write: mustList(t, "OBSIDIAN_MCP_WRITE_PATHS", "Inbox/**,Daily/**"),
	}
	p = p.with(mustIgnore(t, "Drafts/\n"), nil)
	for _, tt := range []struct {
		path, rule string
		write      bool
	}{
		{path: "Private/a.md", rule: "--deny-paths Private/**"},
		{path: "Private/a.md", rule: "--deny-paths Private/**", write: true},
		{path: "x/Drafts/a.md", rule: ".mcpignore line 1: Drafts/"},
		{path: "Projects/a.md", rule: "OBSIDIAN_MCP_WRITE_PATHS Inbox/**,Daily/**", write: true},
		{path: "Projects/a.md"},
		{path: "Inbox/a.md", write: true},
	} {
		check := p.CheckRead
		if tt.write {
			check = p.CheckWrite
		}
		err := check(tt.path)
		if tt.rule == "" {
			if err != nil {
				t.Errorf("check(%q, write=%v) = %v, want allowed", tt.path, tt.write, err)
			}
			continue
		}
		e := errors.From(err)
		if err == nil || e.Kind != errors.PermissionDenied || e.Data()["rule"] != tt.rule || e.Data()["path"] != tt.path {
			t.Errorf("check(%q, write=%v) = %v (data %v), want PERMISSION_DENIED naming %q", tt.path, tt.write, err, e.Data(), tt.rule)
		}
	}
}

func TestParseIgnoreErrors(t *testing.T) {
	for _, text := range []string{"ok\n[\n", "/\n", "!\n"} {
		if _, err := ParseIgnore([]byte(text)); err == nil || !strings.Contains(err.Error(), ".mcpignore line") {
			t.Errorf("ParseIgnore(%q) error = %v, want one naming the line", text, err)
		}
	}
}

func TestLiveReloads(t *testing.T) {
	dir := t.TempDir()
	base := &Policy{Deny: mustList(t, "--deny-paths", "Private/**")}
	l := Watch(base, dir)
	if p := l.Current(); p.Hidden("Drafts/a.md") || !p.Hidden("Private/a.md") {
		t.Fatal("without an ignore file only the configured rules apply")
	}
	file := filepath.Join(dir, IgnoreFile)
	write := func(text string, mod time.Time) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	write("Drafts/\n", old)
	p := l.Current()
	if !p.Hidden("Drafts/a.md") || !p.Hidden("Private/a.md") {
		t.Fatal("the ignore file's line was not applied with the configured rules")
	}
	if l.Current() != p {
		t.Error("an unchanged ignore file gave a new policy")
	}
	write("Journal/\n", old.Add(time.Second))
	if p := l.Current(); p.Hidden("Drafts/a.md") || !p.Hidden("Journal/a.md") {
		t.Error("a changed ignore file was not read again")
	}
	write("[\n", old.Add(2*time.Second))
	err := l.Current().CheckRead("Public/a.md")
	if e := errors.From(err); err == nil || !strings.Contains(e.Data()["rule"].(string), ".mcpignore line 1") {
		t.Errorf("a broken ignore file must hide everything, naming its line; got %v", err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if p := l.Current(); p.Hidden("Journal/a.md") || p.Hidden("Public/a.md") {
		t.Error("a removed ignore file still hides")
	}
}

// TestResolvingJudgesTheFileReached: with a resolver, a path is hidden or
// refused for writing when the file it reaches through symlinks is, and
// the error names both; without symlinks on the way nothing changes.
func TestResolvingJudgesTheFileReached(t *testing.T) {
	t.Parallel()
	links := map[string]string{"Public/s.md": "Private/s.md", "Public/pd/x.md": "Private/x.md", "Inbox/out.md": "Projects/p.md"}
	real := func(p string) string {
		if r, ok := links[p]; ok {
			return r
		}
		return p
	}
	p := (&Policy{Deny: mustList(t, "--deny-paths", "Private/**"), Write: mustList(t, "--write-paths", "Inbox/**,Public/**")}).Resolving(real)
	for _, tc := range []struct {
		path          string
		hidden, write bool // hidden; refused for writing
	}{
		{"Public/s.md", true, true},
		{"Public/pd/x.md", true, true},
		{"Public/plain.md", false, false},
		{"Inbox/out.md", false, true}, // visible, but writes land outside the write paths
		{"Inbox/in.md", false, false},
	} {
		if got := p.Hidden(tc.path); got != tc.hidden {
			t.Errorf("Hidden(%s) = %v, want %v", tc.path, got, tc.hidden)
		}
		err := p.CheckWrite(tc.path)
		if (err != nil) != tc.write {
			t.Errorf("CheckWrite(%s) = %v, want refused %v", tc.path, err, tc.write)
		}
		if err != nil && links[tc.path] != "" && !strings.Contains(err.Error(), links[tc.path]) {
			t.Errorf("CheckWrite(%s) does not name the file reached: %v", tc.path, err)
		}
	}
	if got := p.Files([]string{"Public/s.md", "Public/plain.md"}); len(got) != 1 || got[0] != "Public/plain.md" {
		t.Errorf("Files = %q", got)
	}
}
