package obsidiancli

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"runtime"
	"strings"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
)

// How a CLI was found, for logs and doctor.
const (
	FoundConfigured = "--obsidian-bin"
	FoundOnPath     = "PATH"
	FoundInstalled  = "install location"
)

// Found is where the CLI is and how it was found.
type Found struct {
	Path string
	How  string // FoundConfigured, FoundOnPath or FoundInstalled
}

// Finder looks for the Obsidian CLI. Its fields are the machine it looks at,
// so tests can describe another operating system; the zero value looks at
// this one.
type Finder struct {
	GOOS     string                            // "" means runtime.GOOS
	Getenv   func(string) string               // nil means os.Getenv
	LookPath func(string) (string, error)      // nil means exec.LookPath
	Stat     func(string) (fs.FileInfo, error) // nil means os.Stat
}

func (f Finder) goos() string {
	if f.GOOS != "" {
		return f.GOOS
	}
	return runtime.GOOS
}

func (f Finder) getenv(k string) string {
	if f.Getenv != nil {
		return f.Getenv(k)
	}
	return os.Getenv(k)
}

func (f Finder) lookPath(name string) (string, error) {
	if f.LookPath != nil {
		return f.LookPath(name)
	}
	return exec.LookPath(name)
}

func (f Finder) stat(p string) (fs.FileInfo, error) {
	if f.Stat != nil {
		return f.Stat(p)
	}
	return os.Stat(p)
}

// Find locates the CLI. A configured bin (a path, or a name to look up on
// PATH) is the only place tried. Otherwise PATH comes first, then the places
// Obsidian's installer puts the CLI, because MCP hosts such as Claude Desktop
// start servers with a minimal PATH that lacks the user's shell additions.
// tried lists every place looked at, in order, for error messages.
func (f Finder) Find(bin string) (found Found, tried []string, err error) {
	if bin != "" {
		p, err := f.configured(bin)
		if err != nil {
			return Found{}, []string{bin}, err
		}
		return Found{Path: p, How: FoundConfigured}, []string{bin}, nil
	}
	name := defaultBin(f.goos())
	tried = append(tried, name+" on PATH")
	if p, err := f.lookPath(name); err == nil {
		return Found{Path: p, How: FoundOnPath}, tried, nil
	}
	for _, p := range f.InstallLocations() {
		tried = append(tried, p)
		if f.isExecutable(p) {
			return Found{Path: p, How: FoundInstalled}, tried, nil
		}
	}
	return Found{}, tried, fmt.Errorf("not on PATH nor where Obsidian installs it (looked for %s)", strings.Join(tried, ", "))
}

// configured checks a CLI the user named. On Windows, Obsidian.exe is the GUI
// binary whose output is lost; the console redirector Obsidian.com beside it
// is what was meant, so it is used instead, and without it the path is
// refused rather than run into empty answers.
func (f Finder) configured(bin string) (string, error) {
	if !strings.ContainsAny(bin, `/\`) {
		p, err := f.lookPath(bin)
		if err != nil {
			return "", err
		}
		bin = p
	}
	if f.goos() == "windows" && strings.EqualFold(base(bin), "Obsidian.exe") {
		if com := bin[:len(bin)-len(".exe")] + ".com"; f.isExecutable(com) {
			return com, nil
		}
		return "", fmt.Errorf("%s is the Obsidian app, whose output is lost; the CLI is Obsidian.com beside it, which Obsidian 1.12.7 and later install", bin)
	}
	fi, err := f.stat(bin)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Said the same on every system (the system's own words differ:
		// "stat …: no such file or directory", "GetFileAttributesEx …:
		// The system cannot find the path specified").
		return "", fmt.Errorf("%s does not exist", bin)
	case err != nil:
		return "", err
	case fi.IsDir():
		return "", fmt.Errorf("%s is a folder, not the CLI executable", bin)
	case f.goos() != "windows" && fi.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("%s is not executable (chmod +x it)", bin)
	}
	return bin, nil
}

func (f Finder) isExecutable(p string) bool {
	fi, err := f.stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return f.goos() == "windows" || fi.Mode().Perm()&0o111 != 0
}

// InstallLocations are where Obsidian's installer and its "register CLI"
// step put the CLI (docs/cli.md §4), most specific first.
func (f Finder) InstallLocations() []string {
	home := f.getenv("HOME")
	switch f.goos() {
	case "darwin":
		locs := []string{
			"/usr/local/bin/obsidian", // the symlink registration makes
			"/Applications/Obsidian.app/Contents/MacOS/obsidian-cli",
		}
		if home != "" {
			locs = append(locs, path.Join(home, "Applications/Obsidian.app/Contents/MacOS/obsidian-cli"))
		}
		return locs
	case "windows":
		var locs []string
		if d := f.getenv("LOCALAPPDATA"); d != "" {
			locs = append(locs, winJoin(d, `Programs\Obsidian\Obsidian.com`))
		}
		pf := f.getenv("ProgramFiles")
		if pf == "" {
			pf = `C:\Program Files`
		}
		locs = append(locs, winJoin(pf, `Obsidian\Obsidian.com`))
		if d := f.getenv("ProgramFiles(x86)"); d != "" {
			locs = append(locs, winJoin(d, `Obsidian\Obsidian.com`))
		}
		return locs
	default:
		var locs []string
		if home != "" {
			locs = append(locs, path.Join(home, ".local/bin/obsidian")) // where registration copies it
		}
		return append(locs,
			"/usr/local/bin/obsidian",    // older registration, a symlink
			"/opt/Obsidian/obsidian-cli", // the .deb install folder
		)
	}
}

// defaultBin is the CLI's executable name. On Windows it must be the console
// redirector Obsidian.com: Obsidian.exe is a GUI binary whose stdout is lost.
func defaultBin(goos string) string {
	if goos == "windows" {
		return "Obsidian.com"
	}
	return "obsidian"
}

func winJoin(dir, rest string) string {
	return strings.TrimRight(dir, `\/`) + `\` + rest
}

func base(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
