package note

import (
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestCheckPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path    string
		wantErr string // substring of the problem, "" for a safe path
	}{
		{"Plan.md", ""},
		{"Projects/Plan.md", ""},
		{"Projects/Sub folder/Plan v2.md", ""},
		{"日本語/ノート.md", ""},
		{"", "must not be empty"},
		{"../etc/passwd", "'..'"},
		{"a/../../b.md", "'..'"},
		{"a/..", "'..'"},
		{"/etc/passwd", "leading '/'"},
		{"C:/Users/x.md", "drive path"},
		{"c:x.md", "drive path"},
		{`Projects\Plan.md`, `not '\'`},
		{"a\x00b.md", "NUL"},
		{"a\tb.md", "U+0009"},
		{"a\nb.md", "U+000A"},
		{"a\x7fb.md", "U+007F"},
		{"a//b.md", "empty or '.'"},
		{"./a.md", "empty or '.'"},
		{"Projects/", "not a folder"},
		{"\xff.md", "UTF-8"},
	}
	for _, tt := range tests {
		got := CheckPath(tt.path)
		if tt.wantErr == "" && got != "" || tt.wantErr != "" && !strings.Contains(got, tt.wantErr) {
			t.Errorf("CheckPath(%q) = %q, want %q", tt.path, got, tt.wantErr)
		}
	}
}

func TestCheckFolderAndNames(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"", "/", "Archive", "Archive/", "a/b/"} {
		if got := CheckFolder(ok); got != "" {
			t.Errorf("CheckFolder(%q) = %q, want ok", ok, got)
		}
	}
	for _, bad := range []string{"../x", "/abs", "a//b", `a\b`} {
		if CheckFolder(bad) == "" {
			t.Errorf("CheckFolder(%q) accepted an unsafe folder", bad)
		}
	}
	if got := CheckName("   "); !strings.Contains(got, "blank") {
		t.Errorf("CheckName(blank) = %q", got)
	}
	if got := CheckName("Projects/Plan"); got != "" {
		t.Errorf("CheckName(Projects/Plan) = %q", got)
	}
	for name, want := range map[string]string{
		"New Plan": "", "New Plan.md": "", "a/b": "'/'", "a:b": "':'", "what?": "'?'",
		" padded": "white space", "..": "not '..'", "": "empty", "a\tb": "U+0009",
	} {
		got := CheckNewName(name)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("CheckNewName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	files := []string{
		"Plan.md", "Projects/Plan.md", "Projects/Roadmap.md", "Archive/2024/Roadmap.md",
		"Inbox.md", "diagram.canvas", "Daily/2026-11-21.md", "Notes/Plan.v2.md", "Readme",
	}
	tests := []struct {
		name       string
		want       string
		wantKind   errors.Kind
		candidates []string
	}{
		{name: "Inbox", want: "Inbox.md"},
		{name: "inbox", want: "Inbox.md"},
		{name: "Inbox.md", want: "Inbox.md"},
		{name: "Plan", want: "Plan.md"}, // exact path wins over the same base name elsewhere
		{name: "Projects/Plan", want: "Projects/Plan.md"},
		{name: "projects/plan.md", want: "Projects/Plan.md"},
		{name: "2024/Roadmap", want: "Archive/2024/Roadmap.md"},
		{name: "Roadmap", wantKind: errors.AmbiguousName, candidates: []string{"Archive/2024/Roadmap.md", "Projects/Roadmap.md"}},
		{name: "diagram.canvas", want: "diagram.canvas"},
		{name: "diagram", wantKind: errors.FileNotFound}, // non-markdown files need their extension
		{name: "Plan.v2", want: "Notes/Plan.v2.md"},
		{name: "Readme", want: "Readme"},
		{name: "Missing", wantKind: errors.FileNotFound},
		{name: "lan", wantKind: errors.FileNotFound}, // no partial matches
	}
	for _, tt := range tests {
		got, err := Resolve(tt.name, files)
		if tt.wantKind != "" {
			e := errors.From(err)
			if e == nil || e.Kind != tt.wantKind {
				t.Errorf("Resolve(%q) = %q, %v; want %s", tt.name, got, err, tt.wantKind)
				continue
			}
			if strings.Join(e.Candidates, ",") != strings.Join(tt.candidates, ",") {
				t.Errorf("Resolve(%q) candidates = %v, want %v", tt.name, e.Candidates, tt.candidates)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestAppendPrepend(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		existing, content string
		inline            bool
		wantAppend        string
		wantPrepend       string
	}{
		{"no trailing newline", "line one\nline two", "new", false, "line one\nline two\nnew", "new\nline one\nline two"},
		{"trailing newline", "# index\n\n- entry\n", "- more\n", false, "# index\n\n- entry\n- more\n", "- more\n\n# index\n\n- entry\n"},
		{"inline", "abc", "def", true, "abcdef", "defabc"},
		{"empty note", "", "first", false, "first", "first\n"},
		{"frontmatter", "---\ntags: [a]\n---\nBody\n", "Top", false, "---\ntags: [a]\n---\nBody\nTop", "---\ntags: [a]\n---\nTop\nBody\n"},
		{"crlf frontmatter", "---\r\na: 1\r\n---\r\nBody", "Top", false, "---\r\na: 1\r\n---\r\nBody\nTop", "---\r\na: 1\r\n---\r\nTop\nBody"},
		{"frontmatter at eof", "---\na: 1\n---", "Top", false, "---\na: 1\n---\nTop", "---\na: 1\n---\nTop\n"},
		{"unclosed frontmatter is body", "---\nnot closed\n", "Top", false, "---\nnot closed\nTop", "Top\n---\nnot closed\n"},
		{"rule later is not frontmatter", "Text\n---\nMore", "Top", false, "Text\n---\nMore\nTop", "Top\nText\n---\nMore"},
	}
	for _, tt := range tests {
		if got := string(Append([]byte(tt.existing), []byte(tt.content), tt.inline)); got != tt.wantAppend {
			t.Errorf("%s: Append = %q, want %q", tt.name, got, tt.wantAppend)
		}
		if got := string(Prepend([]byte(tt.existing), []byte(tt.content), tt.inline)); got != tt.wantPrepend {
			t.Errorf("%s: Prepend = %q, want %q", tt.name, got, tt.wantPrepend)
		}
	}
}

func TestTargets(t *testing.T) {
	t.Parallel()
	tests := []struct{ fn, from, arg, want string }{
		{"move", "Inbox/Plan.md", "Archive", "Archive/Plan.md"},
		{"move", "Inbox/Plan.md", "Archive/", "Archive/Plan.md"},
		{"move", "Inbox/Plan.md", "", "Plan.md"},
		{"move", "Inbox/Plan.md", "/", "Plan.md"},
		{"move", "Inbox/Plan.md", "Archive/Old Plan.md", "Archive/Old Plan.md"},
		{"move", "Inbox/Plan.md", "Archive/v1.2", "Archive/v1.2/Plan.md"},
		{"move", "board.canvas", "Boards", "Boards/board.canvas"},
		{"rename", "Inbox/Plan.md", "Roadmap", "Inbox/Roadmap.md"},
		{"rename", "Inbox/Plan.md", "Roadmap.md", "Inbox/Roadmap.md"},
		{"rename", "Plan.md", "Plan v2.0", "Plan v2.0.md"},
		{"rename", "board.canvas", "b2", "b2.canvas"},
	}
	for _, tt := range tests {
		var got string
		if tt.fn == "move" {
			got = MoveTarget(tt.from, tt.arg)
		} else {
			got = RenameTarget(tt.from, tt.arg)
		}
		if got != tt.want {
			t.Errorf("%s(%q, %q) = %q, want %q", tt.fn, tt.from, tt.arg, got, tt.want)
		}
	}
	for req, want := range map[CreateRequest]string{
		{Path: "a/b"}:                    "a/b.md",
		{Path: "a/b.canvas"}:             "a/b.canvas",
		{Name: "Plan"}:                   "Plan.md",
		{Name: "Plan", Folder: "Ideas/"}: "Ideas/Plan.md",
	} {
		if got := req.Target(); got != want {
			t.Errorf("%+v.Target() = %q, want %q", req, got, want)
		}
	}
}

func TestJoin(t *testing.T) {
	for _, c := range [][3]string{
		{"", "Plan.md", "Plan.md"},
		{"/", "Plan.md", "Plan.md"},
		{"Projects", "Plan.md", "Projects/Plan.md"},
		{"Projects/", "Plan.md", "Projects/Plan.md"},
		{"a/b/", "c.md", "a/b/c.md"},
	} {
		if got := Join(c[0], c[1]); got != c[2] {
			t.Errorf("Join(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestPrependAfterByteOrderMark(t *testing.T) {
	for in, want := range map[string]string{
		"\ufeffbody":              "\ufeffnew\nbody",
		"\ufeff---\na: 1\n---\nb": "\ufeff---\na: 1\n---\nnew\nb",
	} {
		if got := string(Prepend([]byte(in), []byte("new"), false)); got != want {
			t.Errorf("Prepend(%q) = %q, want %q", in, got, want)
		}
	}
}
