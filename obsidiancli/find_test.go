package obsidiancli

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeFS is a file system of paths and modes for Finder.Stat.
type fakeFS map[string]fs.FileMode

type fakeInfo struct {
	name string
	mode fs.FileMode
}

func (i fakeInfo) Name() string       { return i.name }
func (i fakeInfo) Size() int64        { return 1 }
func (i fakeInfo) Mode() fs.FileMode  { return i.mode }
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fakeInfo) Sys() any           { return nil }

func (m fakeFS) stat(p string) (fs.FileInfo, error) {
	mode, ok := m[p]
	if !ok {
		return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	return fakeInfo{base(p), mode}, nil
}

func TestFinderSearchOrder(t *testing.T) {
	t.Parallel()
	const exe, plain = 0o755, 0o644
	env := map[string]map[string]string{
		"linux":   {"HOME": "/home/u"},
		"darwin":  {"HOME": "/Users/u"},
		"windows": {"LOCALAPPDATA": `C:\Users\u\AppData\Local`, "ProgramFiles": `C:\Program Files`, "ProgramFiles(x86)": `C:\Program Files (x86)`},
	}
	tests := []struct {
		name    string
		goos    string
		bin     string
		onPath  map[string]string // name → path LookPath answers
		files   fakeFS
		want    Found
		wantErr string
		tried   []string
	}{
		{
			name:   "linux: PATH wins over the install location",
			goos:   "linux",
			onPath: map[string]string{"obsidian": "/usr/bin/obsidian"},
			files:  fakeFS{"/home/u/.local/bin/obsidian": exe},
			want:   Found{"/usr/bin/obsidian", FoundOnPath},
			tried:  []string{"obsidian on PATH"},
		},
		{
			name:  "linux: the copy registration makes in ~/.local/bin",
			goos:  "linux",
			files: fakeFS{"/home/u/.local/bin/obsidian": exe, "/usr/local/bin/obsidian": exe},
			want:  Found{"/home/u/.local/bin/obsidian", FoundInstalled},
			tried: []string{"obsidian on PATH", "/home/u/.local/bin/obsidian"},
		},
		{
			name:  "linux: a file without the executable bit is passed over",
			goos:  "linux",
			files: fakeFS{"/home/u/.local/bin/obsidian": plain, "/usr/local/bin/obsidian": exe},
			want:  Found{"/usr/local/bin/obsidian", FoundInstalled},
		},
		{
			name:  "linux: a folder is passed over",
			goos:  "linux",
			files: fakeFS{"/home/u/.local/bin/obsidian": fs.ModeDir | exe, "/opt/Obsidian/obsidian-cli": exe},
			want:  Found{"/opt/Obsidian/obsidian-cli", FoundInstalled},
		},
		{
			name:    "linux: nowhere, and the error lists every place",
			goos:    "linux",
			wantErr: "looked for obsidian on PATH, /home/u/.local/bin/obsidian, /usr/local/bin/obsidian, /opt/Obsidian/obsidian-cli",
			tried:   []string{"obsidian on PATH", "/home/u/.local/bin/obsidian", "/usr/local/bin/obsidian", "/opt/Obsidian/obsidian-cli"},
		},
		{
			name:  "darwin: the registration symlink before the app bundle",
			goos:  "darwin",
			files: fakeFS{"/usr/local/bin/obsidian": exe, "/Applications/Obsidian.app/Contents/MacOS/obsidian-cli": exe},
			want:  Found{"/usr/local/bin/obsidian", FoundInstalled},
		},
		{
			name:  "darwin: CLI not registered, found inside the app",
			goos:  "darwin",
			files: fakeFS{"/Applications/Obsidian.app/Contents/MacOS/obsidian-cli": exe},
			want:  Found{"/Applications/Obsidian.app/Contents/MacOS/obsidian-cli", FoundInstalled},
			tried: []string{"obsidian on PATH", "/usr/local/bin/obsidian", "/Applications/Obsidian.app/Contents/MacOS/obsidian-cli"},
		},
		{
			name:  "darwin: app installed in ~/Applications",
			goos:  "darwin",
			files: fakeFS{"/Users/u/Applications/Obsidian.app/Contents/MacOS/obsidian-cli": exe},
			want:  Found{"/Users/u/Applications/Obsidian.app/Contents/MacOS/obsidian-cli", FoundInstalled},
		},
		{
			name:   "windows: PATH is asked for Obsidian.com, never Obsidian.exe",
			goos:   "windows",
			onPath: map[string]string{"Obsidian.com": `C:\Tools\Obsidian.com`, "obsidian": `C:\Tools\Obsidian.exe`},
			want:   Found{`C:\Tools\Obsidian.com`, FoundOnPath},
			tried:  []string{"Obsidian.com on PATH"},
		},
		{
			name:  "windows: per-user install before Program Files",
			goos:  "windows",
			files: fakeFS{`C:\Users\u\AppData\Local\Programs\Obsidian\Obsidian.com`: plain, `C:\Program Files\Obsidian\Obsidian.com`: plain},
			want:  Found{`C:\Users\u\AppData\Local\Programs\Obsidian\Obsidian.com`, FoundInstalled},
		},
		{
			name:  "windows: machine-wide install; no executable bit needed",
			goos:  "windows",
			files: fakeFS{`C:\Program Files\Obsidian\Obsidian.com`: plain, `C:\Program Files\Obsidian\Obsidian.exe`: plain},
			want:  Found{`C:\Program Files\Obsidian\Obsidian.com`, FoundInstalled},
			tried: []string{"Obsidian.com on PATH", `C:\Users\u\AppData\Local\Programs\Obsidian\Obsidian.com`, `C:\Program Files\Obsidian\Obsidian.com`},
		},
		{
			name:    "windows: only Obsidian.exe installed (before 1.12.7) is not the CLI",
			goos:    "windows",
			files:   fakeFS{`C:\Program Files\Obsidian\Obsidian.exe`: plain},
			wantErr: `C:\Program Files (x86)\Obsidian\Obsidian.com`,
		},
		{
			name:   "configured path is the only place tried",
			goos:   "linux",
			bin:    "/opt/custom/obsidian",
			onPath: map[string]string{"obsidian": "/usr/bin/obsidian"},
			files:  fakeFS{"/opt/custom/obsidian": exe},
			want:   Found{"/opt/custom/obsidian", FoundConfigured},
			tried:  []string{"/opt/custom/obsidian"},
		},
		{
			name:    "configured path that does not exist is not replaced by a search",
			goos:    "linux",
			bin:     "/opt/custom/obsidian",
			files:   fakeFS{"/home/u/.local/bin/obsidian": exe},
			wantErr: "/opt/custom/obsidian does not exist",
		},
		{
			name:    "configured folder",
			goos:    "linux",
			bin:     "/opt/custom",
			files:   fakeFS{"/opt/custom": fs.ModeDir | exe},
			wantErr: "is a folder",
		},
		{
			name:    "configured file without the executable bit",
			goos:    "darwin",
			bin:     "/Users/u/obsidian",
			files:   fakeFS{"/Users/u/obsidian": plain},
			wantErr: "chmod +x",
		},
		{
			name:   "configured bare name is looked up on PATH",
			goos:   "linux",
			bin:    "obsidian-1.12",
			onPath: map[string]string{"obsidian-1.12": "/usr/local/bin/obsidian-1.12"},
			files:  fakeFS{"/usr/local/bin/obsidian-1.12": exe},
			want:   Found{"/usr/local/bin/obsidian-1.12", FoundConfigured},
		},
		{
			name:  "windows: configured Obsidian.exe means the Obsidian.com beside it",
			goos:  "windows",
			bin:   `C:\Program Files\Obsidian\Obsidian.exe`,
			files: fakeFS{`C:\Program Files\Obsidian\Obsidian.com`: plain, `C:\Program Files\Obsidian\Obsidian.exe`: plain},
			want:  Found{`C:\Program Files\Obsidian\Obsidian.com`, FoundConfigured},
		},
		{
			name:   "windows: configured bare Obsidian.exe found on PATH also means Obsidian.com",
			goos:   "windows",
			bin:    "Obsidian.exe",
			onPath: map[string]string{"Obsidian.exe": `C:\Obsidian\Obsidian.exe`},
			files:  fakeFS{`C:\Obsidian\Obsidian.com`: plain, `C:\Obsidian\Obsidian.exe`: plain},
			want:   Found{`C:\Obsidian\Obsidian.com`, FoundConfigured},
		},
		{
			name:    "windows: configured Obsidian.exe without Obsidian.com is refused",
			goos:    "windows",
			bin:     `C:\Program Files\Obsidian\obsidian.EXE`,
			files:   fakeFS{`C:\Program Files\Obsidian\obsidian.EXE`: plain},
			wantErr: "the CLI is Obsidian.com beside it",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var asked []string
			f := Finder{
				GOOS:   tt.goos,
				Getenv: func(k string) string { return env[tt.goos][k] },
				LookPath: func(name string) (string, error) {
					asked = append(asked, name)
					if p, ok := tt.onPath[name]; ok {
						return p, nil
					}
					return "", os.ErrNotExist
				},
				Stat: tt.files.stat,
			}
			got, tried, err := f.Find(tt.bin)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Find = %+v, %v; want error containing %q", got, err, tt.wantErr)
				}
			} else if err != nil || got != tt.want {
				t.Fatalf("Find = %+v, %v; want %+v", got, err, tt.want)
			}
			if tt.tried != nil && strings.Join(tried, "|") != strings.Join(tt.tried, "|") {
				t.Errorf("tried %q, want %q", tried, tt.tried)
			}
			if tt.goos == "windows" && tt.bin == "" && (len(asked) != 1 || asked[0] != "Obsidian.com") {
				t.Errorf("PATH was asked for %q, want only Obsidian.com", asked)
			}
		})
	}
}

// TestFinderRealFolders runs the default search on real temporary folders:
// a CLI only in ~/.local/bin is found with an empty PATH, as under a host
// that starts servers with a minimal environment.
func TestFinderRealFolders(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the layout below is Linux's")
	}
	home := t.TempDir()
	f := Finder{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}, LookPath: func(string) (string, error) { return "", os.ErrNotExist }}
	if _, _, err := f.Find(""); err == nil || !strings.Contains(err.Error(), filepath.Join(home, ".local/bin/obsidian")) {
		t.Fatalf("empty home: %v", err)
	}
	bin := filepath.Join(home, ".local", "bin", "obsidian")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, _, err := f.Find("")
	if err != nil || got != (Found{bin, FoundInstalled}) {
		t.Fatalf("Find = %+v, %v", got, err)
	}
}
