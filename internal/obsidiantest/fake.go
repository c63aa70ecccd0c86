package obsidiantest

import (
	"encoding/json"
	"fmt"
	"github.com/obsidian-mcp/obsidian-mcp/errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/note"
)

// call is one parsed invocation.
type call struct {
	command string
	params  map[string]string
	flags   map[string]bool
}

func runFake(args []string, stdout, stderr io.Writer) int {
	self := os.Args[0]
	sc, err := loadScenario(filepath.Join(filepath.Dir(self), "scenario.json"))
	if err != nil {
		fmt.Fprintln(stderr, "fake obsidian:", err)
		return 2
	}
	logCall(sc.Log, args)

	if sc.Grandchild != "" {
		gc := exec.Command(self)
		gc.Env = append(os.Environ(), grandchildEnv+"="+sc.Grandchild)
		gc.Stdout = stdout // the pipe the server reads: it stays open
		_ = gc.Start()
	}
	if sc.NotRunning {
		fmt.Fprintln(stderr, "The CLI is unable to find Obsidian. Please make sure Obsidian is running and try again.")
		return 1
	}
	var out strings.Builder
	if sc.Noise {
		out.WriteString("2026-11-21 10:00:00 Loading updated app package /tmp/obsidian-1.12.7.asar\n")
		out.WriteString("Your Obsidian installer is out of date. Please download the latest installer from https://obsidian.md/download\n")
	}
	defer func() { _, _ = io.WriteString(stdout, out.String()) }()

	c, vaultArg, hasVault := parse(args)
	if slices.Contains(sc.Hang, c.command) || slices.Contains(sc.Hang, "*") {
		_, _ = io.WriteString(stdout, out.String())
		out.Reset()
		time.Sleep(time.Hour)
	}
	if sc.Canned != nil {
		out.WriteString(sc.Canned.Stdout)
		fmt.Fprint(stderr, sc.Canned.Stderr)
		return sc.Canned.Exit
	}
	if hasVault && sc.VaultName != "" && vaultArg != sc.VaultName {
		out.WriteString("Vault not found.\n")
		return 0
	}
	if sc.ColdStart > 0 && coldStart(filepath.Join(filepath.Dir(self), "coldstart.count"), sc.ColdStart) {
		fmt.Fprintf(&out, "Error: Command %q not found. Did you mean: %s?\n", c.command, "help, version")
		return 0
	}
	v := &vault{root: sc.Vault, sc: sc}
	v.run(c, &out)
	return 0
}

func loadScenario(p string) (Scenario, error) {
	var sc Scenario
	data, err := os.ReadFile(p)
	if err != nil {
		return sc, err
	}
	return sc, json.Unmarshal(data, &sc)
}

func logCall(p string, args []string) {
	line, _ := json.Marshal(args)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	_, _ = f.Write(append(line, '\n'))
	_ = f.Close()
}

// coldStart counts invocations in a file and reports whether this one is
// among the first n.
func coldStart(counter string, n int) bool {
	data, _ := os.ReadFile(counter)
	seen, _ := strconv.Atoi(string(data))
	_ = os.WriteFile(counter, []byte(strconv.Itoa(seen+1)), 0o644)
	return seen < n
}

// parse splits argv like the CLI: vault= counts only as the first argument;
// key=value splits on the first '='; bare words are flags. Values get the
// CLI's escape conversion.
func parse(args []string) (c call, vaultName string, hasVault bool) {
	c.params = map[string]string{}
	c.flags = map[string]bool{}
	if len(args) > 0 {
		if v, ok := strings.CutPrefix(args[0], "vault="); ok {
			vaultName, hasVault = v, true
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return c, vaultName, hasVault
	}
	c.command = args[0]
	for _, a := range args[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			c.params[k] = unescape(v)
		} else {
			c.flags[a] = true
		}
	}
	return c, vaultName, hasVault
}

// unescape is the CLI's conversion: every \n, \t and \r becomes the control
// character, whatever precedes it; there is no escape for a backslash.
func unescape(v string) string {
	return strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\r`, "\r").Replace(v)
}

// vault performs commands on a folder the way the app does.
type vault struct {
	root string
	sc   Scenario
}

func (v *vault) abs(rel string) string { return filepath.Join(v.root, filepath.FromSlash(rel)) }

func (v *vault) exists(rel string) bool {
	fi, err := os.Stat(v.abs(rel))
	return err == nil && !fi.IsDir()
}

// files lists vault files like `obsidian files`: hidden folders left out.
func (v *vault) files() []string {
	var out []string
	_ = filepath.WalkDir(v.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != v.root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(v.root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// locate resolves file=/path= like the CLI: path= is exact; file= is a
// wikilink that silently takes the first of several matches.
func (v *vault) locate(c call, out *strings.Builder) (string, bool) {
	if p, ok := c.params["path"]; ok {
		if !v.exists(p) {
			fmt.Fprintf(out, "Error: File %q not found.\n", p)
			return "", false
		}
		return p, true
	}
	if name, ok := c.params["file"]; ok {
		lname := strings.ToLower(name)
		for _, f := range v.files() {
			if b := strings.ToLower(path.Base(f)); b == lname || b == lname+".md" || strings.ToLower(f) == lname+".md" {
				return f, true
			}
		}
		fmt.Fprintf(out, "Error: File %q not found.\n", name)
		return "", false
	}
	out.WriteString("Error: No active file. Use file=<name> or path=<path> to specify a file.\n")
	return "", false
}

// load locates the note and reads it, reporting failures like the CLI.
func (v *vault) load(c call, out *strings.Builder) (string, []byte, bool) {
	p, ok := v.locate(c, out)
	if !ok {
		return "", nil, false
	}
	data, err := os.ReadFile(v.abs(p))
	if v.fsError(err, p, out) {
		return "", nil, false
	}
	return p, data, true
}

// numbered returns p, or the first "stem N.ext" after it that taken does
// not report, the way Obsidian avoids collisions.
func numbered(p string, taken func(string) bool) string {
	stem, ext := strings.TrimSuffix(p, path.Ext(p)), path.Ext(p)
	for i := 1; taken(p); i++ {
		p = fmt.Sprintf("%s %d%s", stem, i, ext)
	}
	return p
}

func (v *vault) run(c call, out *strings.Builder) {
	switch c.command {
	case "":
		out.WriteString("Usage: obsidian <command> [options]\n")
	case "version":
		out.WriteString("1.12.7 (installer 1.12.7)\n")
	case "vault":
		v.vaultInfo(c, out)
	case "files":
		for _, f := range v.files() {
			out.WriteString(f + "\n")
		}
	case "file":
		p, ok := v.locate(c, out)
		if !ok {
			return
		}
		if slices.Contains(v.sc.Invisible, p) {
			out.Reset()
			fmt.Fprintf(out, "Error: File %q not found.\n", p)
			return
		}
		fi, err := os.Stat(v.abs(p))
		if v.fsError(err, p, out) {
			return
		}
		ms := fi.ModTime().UnixMilli()
		fmt.Fprintf(out, "path\t%s\nname\t%s\nextension\t%s\nsize\t%d\ncreated\t%d\nmodified\t%d\n",
			p, note.Stem(p), note.Ext(p), fi.Size(), ms, ms)
	case "read":
		_, data, ok := v.load(c, out)
		if !ok {
			return
		}
		out.Write(data)
		if len(data) == 0 || data[len(data)-1] != '\n' {
			out.WriteString("\n")
		}
	case "create":
		v.create(c, out)
	case "append", "prepend":
		v.edit(c, out)
	case "delete":
		v.delete(c, out)
	case "move", "rename":
		v.move(c, out)
	case "open":
		v.locate(c, out) // success prints nothing
	default:
		fmt.Fprintf(out, "Error: Command %q not found. Did you mean: %s?\n", c.command, "help, version")
	}
}

func (v *vault) vaultInfo(c call, out *strings.Builder) {
	reported := v.sc.ReportedPath
	if reported == "" {
		reported = v.root
	}
	switch c.params["info"] {
	case "path":
		out.WriteString(reported + "\n")
	case "name":
		out.WriteString(filepath.Base(v.root) + "\n")
	default:
		fmt.Fprintf(out, "name\t%s\npath\t%s\nfiles\t%d\n", filepath.Base(v.root), reported, len(v.files()))
	}
}

func (v *vault) create(c call, out *strings.Builder) {
	target := "Untitled.md"
	p, hasPath := c.params["path"]
	name, hasName := c.params["name"]
	switch {
	case hasPath && hasName:
		target = note.Join(strings.Trim(p, "/"), note.WithDefaultExt(name))
	case hasPath:
		target = note.WithDefaultExt(p)
	case hasName:
		target = note.WithDefaultExt(name)
	}
	if strings.ContainsAny(path.Base(target), `*"\<>:|?`) {
		out.WriteString("Error: File name cannot contain any of the following characters: * \" \\ / < > : | ?\n")
		return
	}
	if slices.Contains(strings.Split(target, "/"), "..") {
		out.WriteString("TypeError: Cannot read properties of null (reading 'getParentPrefix')\n")
		return
	}
	content := c.params["content"]
	if tpl, ok := c.params["template"]; ok {
		data, err := os.ReadFile(v.abs(note.Join("Templates", note.WithDefaultExt(tpl))))
		if err != nil {
			out.WriteString("Error: No template folder configured.\n")
			return
		}
		content = string(data) + content
	}
	verb := "Created"
	if v.exists(target) {
		if c.flags["overwrite"] {
			verb = "Overwrote"
		} else {
			// Obsidian never fails on a collision: it picks "Name 1.md".
			target = numbered(target, v.exists)
		}
	}
	if err := os.MkdirAll(filepath.Dir(v.abs(target)), 0o755); v.fsError(err, target, out) {
		return
	}
	if err := os.WriteFile(v.abs(target), []byte(content), 0o644); v.fsError(err, target, out) {
		return
	}
	fmt.Fprintf(out, "%s: %s\n", verb, target)
}

func (v *vault) edit(c call, out *strings.Builder) {
	content, ok := c.params["content"]
	if !ok {
		fmt.Fprintf(out, "Error: Missing required parameter: content=<text>\nUsage: %s [file=<name>] [path=<path>] content=<text> [inline]\n", c.command)
		return
	}
	p, data, ok := v.load(c, out)
	if !ok {
		return
	}
	apply, verb := note.Append, "Appended to"
	if c.command == "prepend" {
		apply, verb = note.Prepend, "Prepended to"
	}
	if err := os.WriteFile(v.abs(p), apply(data, []byte(content), c.flags["inline"]), 0o644); v.fsError(err, p, out) {
		return
	}
	fmt.Fprintf(out, "%s: %s\n", verb, p)
}

func (v *vault) delete(c call, out *strings.Builder) {
	p, ok := v.locate(c, out)
	if !ok {
		return
	}
	if c.flags["permanent"] {
		if err := os.Remove(v.abs(p)); v.fsError(err, p, out) {
			return
		}
		fmt.Fprintf(out, "Deleted permanently: %s\n", p)
		return
	}
	trash := filepath.Join(v.root, ".trash")
	_ = os.MkdirAll(trash, 0o755)
	dest := numbered(filepath.Join(trash, path.Base(p)), fileExists)
	if err := os.Rename(v.abs(p), dest); v.fsError(err, p, out) {
		return
	}
	fmt.Fprintf(out, "Moved to trash: %s\n", p)
}

func (v *vault) move(c call, out *strings.Builder) {
	key, usage := "to", "move [file=<name>] [path=<path>] to=<path>"
	if c.command == "rename" {
		key, usage = "name", "rename [file=<name>] [path=<path>] name=<name>"
	}
	arg, ok := c.params[key]
	if !ok {
		fmt.Fprintf(out, "Error: Missing required parameter: %s=<%s>\nUsage: %s\n", key, map[string]string{"to": "path", "name": "name"}[key], usage)
		return
	}
	p, ok := v.locate(c, out)
	if !ok {
		return
	}
	dest := note.MoveTarget(p, arg)
	if c.command == "rename" {
		dest = note.RenameTarget(p, arg)
	}
	if dest != p && v.exists(dest) && !strings.EqualFold(dest, p) {
		out.WriteString("Error: Destination file already exists!\n")
		return
	}
	if err := os.MkdirAll(filepath.Dir(v.abs(dest)), 0o755); v.fsError(err, dest, out) {
		return
	}
	if err := os.Rename(v.abs(p), v.abs(dest)); v.fsError(err, p, out) {
		return
	}
	verb := "Moved"
	if c.command == "rename" {
		verb = "Renamed"
	}
	fmt.Fprintf(out, "%s: %s -> %s\n", verb, p, dest)
}

// fsError prints a file-system failure the way Obsidian's Node runtime
// words it and reports whether there was one.
func (v *vault) fsError(err error, rel string, out *strings.Builder) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, fs.ErrPermission):
		fmt.Fprintf(out, "Error: EACCES: permission denied, open '%s'\n", v.abs(rel))
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(out, "Error: File %q not found.\n", rel)
	default:
		fmt.Fprintf(out, "Error: %v\n", err)
	}
	return true
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
