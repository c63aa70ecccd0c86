package obsidiantest

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Transcripts: a test's exchange with a server, `-> ` lines sent and `<- `
// lines received, kept in a file and compared line by line.

// volatile values a transcript cannot pin: file times and durations, in
// the structured content's JSON and in the text block's YAML.
var (
	volatile     = regexp.MustCompile(`(\\?"(?:created|modified)\\?":)(\\?")[0-9T:.Z-]+\\?"`)
	volatileYAML = regexp.MustCompile(`((?:\\n|"|, |\{)[ ]*(?:created|modified): \\")[0-9T:.Z-]+\\"`)
)

// Normalise puts <time> for the times of an answer line.
func Normalise(line string) string {
	line = volatileYAML.ReplaceAllString(line, `$1<time>\"`)
	return volatile.ReplaceAllString(line, `$1$2<time>$2`)
}

// CheckTranscript compares the lines got with the transcript file holding
// want, or rewrites the file when update is set; regenerate says how.
func CheckTranscript(t testing.TB, file, want string, got []string, update bool, regenerate string) {
	t.Helper()
	want = strings.TrimSuffix(want, "\n")
	if update {
		if err := os.WriteFile(file, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("%s differs (run %s and review the diff):\n%s", file, regenerate, DiffLines(want, g))
	}
}

// DiffLines says which lines of got differ from want's.
func DiffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n   got %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

// Fixture writes the vault the server tests start from.
func Fixture(f *Fake) {
	f.WriteNote("Welcome.md", "# Welcome\n\nStart at [[Projects/Plan]].\n")
	f.WriteNote("Projects/Plan.md", "---\ntags: [project]\n---\n# Plan\n- step one\n")
	f.WriteNote("Archive/Plan.md", "# Old plan\n")
	f.WriteNote("Daily/2026-11-21.md", "Log")
	f.WriteNote(".obsidian/templates.json", `{"folder":"Templates"}`)
	f.WriteNote("Templates/Meeting.md", "## Attendees\n")
}

// InOrder fails t for each of want that got does not hold after the
// previous one, and for each of absent that got holds.
func InOrder(t testing.TB, got string, want, absent []string) {
	t.Helper()
	rest := got
	for _, w := range want {
		i := strings.Index(rest, w)
		if i < 0 {
			t.Errorf("output lacks %q (in order)", w)
			continue
		}
		rest = rest[i+len(w):]
	}
	for _, a := range absent {
		if strings.Contains(got, a) {
			t.Errorf("output has %q", a)
		}
	}
}
