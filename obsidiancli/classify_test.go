package obsidiancli

import (
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	noise := "2026-11-21 10:00:00 Loading updated app package /x.asar\nYour Obsidian installer is out of date. Please download…\n"
	tests := []struct {
		name     string
		command  string
		exit     int
		stdout   string
		stderr   string
		data     bool
		wantOut  string
		wantKind errors.Kind
		wantMsg  string
		cold     bool
	}{
		{name: "success", command: "create", stdout: "Created: a.md\n", wantOut: "Created: a.md\n"},
		{name: "noise stripped", command: "create", stdout: noise + "\n\nCreated: a.md\n", wantOut: "Created: a.md\n"},
		{name: "file not found", command: "read", stdout: "Error: File \"x.md\" not found.\n", wantKind: errors.FileNotFound, wantMsg: "note not found: x.md"},
		{name: "not found after noise", command: "delete", stdout: noise + "Error: File \"x.md\" not found.\n", wantKind: errors.FileNotFound},
		{name: "vault not found", command: "files", stdout: "Vault not found.\n", wantKind: errors.VaultNotFound},
		{name: "destination exists", command: "rename", stdout: "Error: Destination file already exists!\n", wantKind: errors.FileExists},
		{name: "permission", command: "append", stdout: "Error: EACCES: permission denied, open '/v/a.md'\n", wantKind: errors.PermissionDenied},
		{name: "eperm", command: "delete", stdout: "Error: EPERM: operation not permitted, unlink '/v/a.md'\n", wantKind: errors.PermissionDenied},
		{name: "invalid name", command: "create", stdout: "Error: File name cannot contain any of the following characters: * \" \\ / < > : | ?\n", wantKind: errors.InvalidParams},
		{name: "template", command: "create", stdout: "Error: No template folder configured.\n", wantKind: errors.CLIError, wantMsg: "No template folder"},
		{name: "multi-line error keeps first line", command: "move", stdout: "Error: Missing required parameter: to=<path>\nUsage: move [file=<name>] [path=<path>] to=<path>\n", wantKind: errors.CLIError, wantMsg: "obsidian move: Missing required parameter: to=<path>"},
		{name: "js error", command: "create", stdout: "TypeError: Cannot read properties of null (reading 'getParentPrefix')\n", wantKind: errors.CLIError, wantMsg: "TypeError"},
		{name: "cold start", command: "read", stdout: "Error: Command \"read\" not found. Did you mean: help?\n", wantKind: errors.CLIError, cold: true},
		{name: "other unknown command is no cold start", command: "read", stdout: "Error: Command \"bogus\" not found.\n", wantKind: errors.CLIError},
		{name: "not running", command: "read", exit: 1, stderr: "The CLI is unable to find Obsidian. Please make sure Obsidian is running and try again.\n", wantKind: errors.NotRunning},
		{name: "other exit", command: "read", exit: 3, stderr: "segfault\n", wantKind: errors.CLIError, wantMsg: "exited with status 3: segfault"},
		{name: "exit with permission", command: "read", exit: 1, stderr: "EACCES: permission denied, connect\n", wantKind: errors.PermissionDenied},
		{name: "content starting with Error", command: "read", data: true, stdout: "Error: this note is about errors\n", wantOut: "Error: this note is about errors\n"},
		{name: "content keeps leading blank lines", command: "read", data: true, stdout: noise + "\n\nBody\n", wantOut: "\n\nBody\n"},
		{name: "content read not found", command: "read", data: true, stdout: "Error: File \"x.md\" not found.\n", wantKind: errors.FileNotFound},
		{name: "content starting with TypeError", command: "read", data: true, stdout: "TypeError: a note\n", wantOut: "TypeError: a note\n"},
	}
	for _, tt := range tests {
		got := classify(tt.command, tt.exit, tt.stdout, tt.stderr, tt.data)
		if got.coldStart != tt.cold {
			t.Errorf("%s: coldStart = %v, want %v", tt.name, got.coldStart, tt.cold)
		}
		if tt.wantKind == "" {
			if got.err != nil || got.out != tt.wantOut {
				t.Errorf("%s: got (%q, %v), want %q", tt.name, got.out, got.err, tt.wantOut)
			}
			continue
		}
		if got.err == nil || got.err.Kind != tt.wantKind {
			t.Errorf("%s: err = %v, want kind %s", tt.name, got.err, tt.wantKind)
			continue
		}
		if !strings.Contains(got.err.Message, tt.wantMsg) {
			t.Errorf("%s: message %q lacks %q", tt.name, got.err.Message, tt.wantMsg)
		}
	}
}

func TestExactContent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		content string
	}{{"a"}, {"a\n"}, {""}, {"\n"}, {"a\n\n"}, {"\n\nbody"}, {"x\r\n"}}
	for _, tt := range tests {
		out := tt.content
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		got, ok := exactContent(out, int64(len(tt.content)))
		if !ok || got != tt.content {
			t.Errorf("exactContent(%q, %d) = %q, %v; want %q", out, len(tt.content), got, ok, tt.content)
		}
		// With a blank line the CLI may print first. When the content ends
		// with a newline this is ambiguous, and the reading without added
		// lines wins, so only the unambiguous cases are checked.
		if strings.HasSuffix(tt.content, "\n") {
			continue
		}
		got, ok = exactContent("\n"+out, int64(len(tt.content)))
		if !ok || got != tt.content {
			t.Errorf("exactContent(blank+%q) = %q, %v; want %q", out, got, ok, tt.content)
		}
	}
	if _, ok := exactContent("abc\n", 10); ok {
		t.Error("a size larger than the output must not match")
	}
}

func TestParseInfo(t *testing.T) {
	t.Parallel()
	info, err := parseInfo("path\tWelcome.md\nname\tWelcome\nextension\tmd\nsize\t220\ncreated\t1778239632126\nmodified\t1778458814684\n")
	if err != nil {
		t.Fatal(err)
	}
	if info.Path != "Welcome.md" || info.Name != "Welcome" || info.Extension != "md" || info.Size != 220 {
		t.Errorf("parseInfo = %+v", info)
	}
	if got := info.Created.Format("2006-01-02T15:04:05.000Z07:00"); got != "2026-05-08T11:27:12.126Z" {
		t.Errorf("created = %s", got)
	}
	for _, bad := range []string{"", "path\tx\n", "path\tx\nname\tx\nextension\tmd\nsize\tbig\ncreated\t1\nmodified\t1\n"} {
		if _, err := parseInfo(bad); errors.From(err).Kind != errors.CLIError {
			t.Errorf("parseInfo(%q) err = %v, want CLI_ERROR", bad, err)
		}
	}
}

func TestArgSafe(t *testing.T) {
	t.Parallel()
	for content, want := range map[string]bool{
		"plain\nmulti\tline\r\n":   true,
		"":                         true,
		`LaTeX \times`:             false,
		"nul\x00":                  false,
		strings.Repeat("a", 4096):  true,
		strings.Repeat("a", 4097):  false,
		strings.Repeat("\n", 2049): false, // escaped, it is 4098 bytes
	} {
		if got := argSafe(content); got != want {
			t.Errorf("argSafe(%.20q…) = %v, want %v", content, got, want)
		}
	}
}
