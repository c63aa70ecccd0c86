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

// TestAppendPrepend checks that added text is a Markdown block of its own
// next to each kind of block, and continues a list, a table or a quote
// where that is what it is.
func TestAppendPrepend(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		existing, content string
		inline            bool
		wantAppend        string
		wantPrepend       string
	}{
		{"paragraph", "Para.\n", "New.", false, "Para.\n\nNew.", "New.\n\nPara.\n"},
		{"paragraph without a final newline", "line one\nline two", "new", false, "line one\nline two\n\nnew", "new\n\nline one\nline two"},
		{"note ends with a blank line", "Para.\n\n", "New.", false, "Para.\n\nNew.", "New.\n\nPara.\n\n"},
		{"note ends with spaces", "Para.\n  ", "New.", false, "Para.\n  \nNew.", "New.\n\nPara.\n  "},
		{"content brings its blank line", "Para.\n", "\nNew.\n\n", false, "Para.\n\nNew.\n\n", "\nNew.\n\nPara.\n"},
		{"list item after a list", "- a\n- b\n", "- c", false, "- a\n- b\n- c", "- c\n- a\n- b\n"},
		{"task after tasks", "- [ ] a\n", "- [x] b\n", false, "- [ ] a\n- [x] b\n", "- [x] b\n- [ ] a\n"},
		{"ordered item", "1. a\n", "2. b", false, "1. a\n2. b", "2. b\n1. a\n"},
		{"list after its intro", "Steps:\n- a\n", "- b", false, "Steps:\n- a\n- b", "- b\n\nSteps:\n- a\n"},
		{"nested item", "- a\n", "  - a1", false, "- a\n  - a1", "  - a1\n- a\n"},
		{"paragraph after a list", "- a\n", "Text", false, "- a\n\nText", "Text\n\n- a\n"},
		{"list after a paragraph", "Para\n", "- a", false, "Para\n\n- a", "- a\n\nPara\n"},
		{"row after a table", "| a | b |\n| - | - |\n| 1 | 2 |\n", "| 3 | 4 |", false,
			"| a | b |\n| - | - |\n| 1 | 2 |\n| 3 | 4 |", "| 3 | 4 |\n\n| a | b |\n| - | - |\n| 1 | 2 |\n"},
		{"paragraph after a table", "| a |\n|---|\n| 1 |", "Text", false, "| a |\n|---|\n| 1 |\n\nText", "Text\n\n| a |\n|---|\n| 1 |"},
		{"pipes without a table", "a | b\n", "c | d", false, "a | b\n\nc | d", "c | d\n\na | b\n"},
		{"text after a callout", "> [!note]\n> body\n", "After", false, "> [!note]\n> body\n\nAfter", "After\n\n> [!note]\n> body\n"},
		{"quote line after a callout", "> [!note]\n> body\n", "> more", false, "> [!note]\n> body\n> more", "> more\n\n> [!note]\n> body\n"},
		{"callout after a callout", "> [!note]\n> body\n", "> [!tip] x", false, "> [!note]\n> body\n\n> [!tip] x", "> [!tip] x\n\n> [!note]\n> body\n"},
		{"text after a quote", "> said\n", "Reply", false, "> said\n\nReply", "Reply\n\n> said\n"},
		{"list before a heading", "# index\n\n- entry\n", "- more\n", false, "# index\n\n- entry\n- more\n", "- more\n# index\n\n- entry\n"},
		{"text under a heading", "## Log\n", "- item", false, "## Log\n- item", "- item\n## Log\n"},
		{"heading after text", "Para\n", "## New", false, "Para\n## New", "## New\nPara\n"},
		{"rule after text is no heading", "Text\n", "---", false, "Text\n\n---", "---\n\nText\n"},
		{"code fence", "```\ncode\n```\n", "Text", false, "```\ncode\n```\n\nText", "Text\n\n```\ncode\n```\n"},
		{"inline", "abc", "def", true, "abcdef", "defabc"},
		{"empty note", "", "first", false, "first", "first\n"},
		{"frontmatter", "---\ntags: [a]\n---\nBody\n", "Top", false, "---\ntags: [a]\n---\nBody\n\nTop", "---\ntags: [a]\n---\nTop\n\nBody\n"},
		{"only frontmatter", "---\na: 1\n---\n", "Body", false, "---\na: 1\n---\nBody", "---\na: 1\n---\nBody\n"},
		{"body starts with a blank line", "---\na: 1\n---\n\nBody", "Top", false, "---\na: 1\n---\n\nBody\n\nTop", "---\na: 1\n---\nTop\n\nBody"},
		{"crlf", "---\r\na: 1\r\n---\r\nBody", "Top", false, "---\r\na: 1\r\n---\r\nBody\r\n\r\nTop", "---\r\na: 1\r\n---\r\nTop\r\n\r\nBody"},
		{"frontmatter at eof", "---\na: 1\n---", "Top", false, "---\na: 1\n---\nTop", "---\na: 1\n---\nTop\n"},
		{"frontmatter at eof, inline", "---\na: 1\n---", "Top", true, "---\na: 1\n---Top", "---\na: 1\n---\nTop"},
		{"unclosed frontmatter is body", "---\nnot closed\n", "Top", false, "---\nnot closed\n\nTop", "Top\n\n---\nnot closed\n"},
		{"rule later is not frontmatter", "Text\n---\nMore", "Top", false, "Text\n---\nMore\n\nTop", "Top\n\nText\n---\nMore"},
		{"byte order mark only", "\ufeff", "x", false, "\ufeffx", "\ufeffx\n"},
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
		"\ufeffbody":              "\ufeffnew\n\nbody",
		"\ufeff---\na: 1\n---\nb": "\ufeff---\na: 1\n---\nnew\n\nb",
	} {
		if got := string(Prepend([]byte(in), []byte("new"), false)); got != want {
			t.Errorf("Prepend(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFrontmatterEnd(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"---\na: 1\n---\nbody", 13},
		{"---\r\na: 1\r\n---\r\nbody", 16},
		{"---\na: 1\n---", 12},
		// A CR that ends no line does not make a fence.
		{"---\na: 1\n---\r", 0},
		{"---\na: 1\n---\r#A", 0},
		{"---\n", 0},
		{"body\n---\na: 1\n---\n", 0},
		{"\ufeff---\na: 1\n---\n", 16},
	} {
		if got := FrontmatterEnd([]byte(c.in)); got != c.want {
			t.Errorf("FrontmatterEnd(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
