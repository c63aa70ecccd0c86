package obsidiancli

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// FuzzClassify: whatever the CLI prints and however it exits, classify
// gives either the answer, which is stdout with only leading noise removed,
// or one of our documented errors with a message, and
// data that encodes as valid JSON. A failed exit is never an answer.
func FuzzClassify(f *testing.F) {
	seeds := []struct {
		command        string
		exit           int
		stdout, stderr string
		data           bool
	}{
		{"create", 0, "Created: a.md\n", "", false},
		{"read", 0, "Error: File \"x.md\" not found.\n", "", true},
		{"read", 0, "Error: not a CLI error, just a note\n", "", true},
		{"files", 0, "Vault not found.\n", "", false},
		{"rename", 0, "Error: Destination file already exists!\n", "", false},
		{"append", 0, "Error: EACCES: permission denied, open '/v/a.md'\n", "", false},
		{"read", 0, "Error: Command \"read\" not found. Did you mean: help?\n", "", true},
		{"create", 0, "TypeError: Cannot read properties of null (reading 'x')\n", "", false},
		{"read", 1, "", "The CLI is unable to find Obsidian. Please make sure Obsidian is running and try again.\n", false},
		{"read", 3, "half an answ", "segfault\n", true},
		{"read", 0, "2026-11-21 10:00:00 Loading updated app package /x.asar\n\xff\xfe body", "", true},
		{"file", -1, strings.Repeat("x", 5000), "\xc3\x28", false},
	}
	for _, s := range seeds {
		f.Add(s.command, s.exit, s.stdout, s.stderr, s.data)
	}
	f.Fuzz(func(t *testing.T, command string, exit int, stdout, stderr string, data bool) {
		o := classify(command, exit, stdout, stderr, data)
		if o.err == nil {
			if exit != 0 {
				t.Fatalf("exit %d classified as an answer", exit)
			}
			if !strings.HasSuffix(stdout, o.out) {
				t.Fatalf("the answer %q is not what the CLI printed (%q) less leading noise", o.out, stdout)
			}
			return
		}
		if o.err.Message == "" {
			t.Fatal("an error without a message")
		}
		if !documented(o.err) {
			t.Fatalf("kind %s (code %d) is not in the documented table", o.err.Kind, o.err.Code())
		}
		line, err := json.Marshal(map[string]any{"message": o.err.Message, "data": o.err.Data()})
		if err != nil || !utf8.Valid(line) {
			t.Fatalf("the error does not encode: %v", err)
		}
	})
}

// documented reports whether e's kind and code are in the README's error
// table (errors.Kinds).
func documented(e *errors.Error) bool {
	for _, k := range errors.Kinds() {
		if k.Kind == e.Kind && k.Code == e.Code() {
			return true
		}
	}
	return false
}

// FuzzParseInfo: `file` output the CLI never printed is refused, not
// misread, and never panics.
func FuzzParseInfo(f *testing.F) {
	f.Add("path\tA.md\nname\tA\nextension\tmd\nsize\t5\ncreated\t1700000000000\nmodified\t1700000000000\n")
	f.Add("path\t\nsize\t-1\n")
	f.Add("size\t99999999999999999999\n")
	f.Fuzz(func(t *testing.T, out string) {
		info, err := parseInfo(out)
		if err == nil && info.Size < 0 {
			t.Fatalf("negative size accepted: %+v", info)
		}
	})
}

func BenchmarkClassify(b *testing.B) {
	for _, bc := range []struct {
		name   string
		exit   int
		stdout string
		stderr string
	}{
		{"answer", 0, "Created: Folder/Note.md\n", ""},
		{"file_not_found", 0, "Error: File \"Folder/Note.md\" not found.\n", ""},
		{"not_running", 1, "", "The CLI is unable to find Obsidian. Please make sure Obsidian is running and try again.\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				o := classify("create", bc.exit, bc.stdout, bc.stderr, false)
				if (o.err == nil) != (bc.name == "answer") {
					b.Fatal("misclassified")
				}
			}
		})
	}
}
