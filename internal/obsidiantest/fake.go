package obsidiantest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/errors"
	engine "github.com/obsidian-mcp/obsidian-mcp/native"
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
		// Its pid is written here, as soon as it exists, rather than by the
		// grandchild once its runtime is up: under -race on a busy machine
		// that took longer than a test's 300 ms timeout, whose group kill
		// then ended it before it could say who it was.
		if gc.Start() == nil {
			writePID(sc.Grandchild, gc.Process.Pid)
		}
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
	defer func() {
		answer := out.String()
		if sc.Flood > 0 {
			filler := strings.Repeat(strings.Repeat("x", 99)+"\n", sc.Flood/100+1)[:sc.Flood]
			answer = filler + answer
		}
		if sc.InvalidUTF8 {
			answer = "\xff\xfe" + answer + "\xc3\x28\n"
		}
		if sc.Crash != "" {
			_, _ = io.WriteString(stdout, answer[:len(answer)/2])
			crash(sc.Crash) // does not return
		}
		_, _ = io.WriteString(stdout, answer)
	}()

	c, vaultArg, hasVault := parse(args)
	if slices.Contains(sc.Hang, c.command) || slices.Contains(sc.Hang, "*") {
		_, _ = io.WriteString(stdout, out.String())
		out.Reset()
		hung := filepath.Join(filepath.Dir(self), hungDir)
		if os.MkdirAll(hung, 0o755) == nil {
			_ = os.WriteFile(filepath.Join(hung, strconv.Itoa(os.Getpid())), nil, 0o644)
		}
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
	eng, err := engine.Open(sc.Vault)
	if err != nil {
		fmt.Fprintln(stderr, "fake obsidian:", err)
		return 2
	}
	v := &vault{root: sc.Vault, sc: sc, eng: eng}
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

// vault performs commands on a folder the way the app does. File work is
// the native engine's (package native), so the fake and the engine share
// one implementation of paths, atomic writes, trash and link updates; what
// stays here are the CLI's own quirks: its argv, its output lines and
// error strings, silent picking among same-named notes, and "Name 1.md"
// instead of a collision error.
type vault struct {
	root string
	sc   Scenario
	eng  *engine.Engine
}

func (v *vault) abs(rel string) string { return filepath.Join(v.root, filepath.FromSlash(rel)) }

func (v *vault) exists(rel string) bool {
	fi, err := os.Stat(v.abs(rel))
	return err == nil && !fi.IsDir()
}

// files lists vault files like `obsidian files`: hidden folders left out.
func (v *vault) files() []string {
	files, _ := v.eng.Files()
	return files
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

func (v *vault) run(c call, out *strings.Builder) {
	if v.readSide(c, out) {
		return
	}
	switch c.command {
	case "":
		out.WriteString("Usage: obsidian <command> [options]\n")
	case "version":
		out.WriteString("1.12.7 (installer 1.12.7)\n")
	case "vault":
		v.vaultInfo(c, out)
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
		info, err := v.eng.FileInfo(context.Background(), note.ByPath(p))
		if v.fail(err, p, out) {
			return
		}
		fmt.Fprintf(out, "path\t%s\nname\t%s\nextension\t%s\nsize\t%d\ncreated\t%d\nmodified\t%d\n",
			info.Path, info.Name, info.Extension, info.Size, info.Created.UnixMilli(), info.Modified.UnixMilli())
	case "read":
		p, ok := v.locate(c, out)
		if !ok {
			return
		}
		v.print(p, out)
	case "create":
		v.create(c, out)
	case "append", "prepend":
		v.edit(c, out)
	case "daily:path":
		// The app's own reading of the Daily notes settings; the engine's
		// is the same.
		p, _ := v.eng.DailyPath(context.Background(), time.Now())
		out.WriteString(p + "\n")
	case "daily:append", "daily:prepend":
		v.daily(c, out)
	case "daily:read":
		v.dailyRead(out)
	case "delete":
		v.delete(c, out)
	case "move", "rename":
		v.move(c, out)
	case "open":
		v.locate(c, out) // success prints nothing
	case "commands", "command":
		appCommands(c, out)
	case "base:query":
		v.baseQuery(c, out)
	default:
		fmt.Fprintf(out, "Error: Command %q not found. Did you mean: %s?\n", c.command, "help, version")
	}
}

// print prints the note at p as read does: its content, and a '\n' when
// it does not end with one.
func (v *vault) print(p string, out *strings.Builder) {
	got, err := v.eng.Read(context.Background(), note.ByPath(p))
	if v.fail(err, p, out) {
		return
	}
	out.WriteString(got.Content)
	if !strings.HasSuffix(got.Content, "\n") {
		out.WriteString("\n")
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
	verb := "Created"
	if v.exists(target) {
		if c.flags["overwrite"] {
			verb = "Overwrote"
		} else {
			// Obsidian never fails on a collision: it picks "Name 1.md".
			target = note.Numbered(target, v.exists)
		}
	}
	_, err := v.eng.Create(context.Background(), note.CreateRequest{
		Path: target, Content: c.params["content"], Template: c.params["template"], Overwrite: c.flags["overwrite"],
	})
	if e := errors.From(err); err != nil && strings.HasPrefix(e.Message, "no template folder") {
		out.WriteString("Error: No template folder configured.\n")
		return
	}
	if v.fail(err, target, out) {
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
	p, ok := v.locate(c, out)
	if !ok {
		return
	}
	join, verb := cliAppend, "Appended to"
	if c.command == "prepend" {
		join, verb = cliPrepend, "Prepended to"
	}
	_, err := v.eng.Edit(context.Background(), note.ByPath(p), "", func(cur []byte) ([]byte, error) {
		return join(cur, []byte(content), c.flags["inline"]), nil
	})
	if v.fail(err, p, out) {
		return
	}
	fmt.Fprintf(out, "%s: %s\n", verb, p)
}

// cliAppend is the app's append (as the real CLI appends): a '\n' first when
// the note does not end with one, unless inline; no blank line.
func cliAppend(cur, content []byte, inline bool) []byte {
	out := append([]byte{}, cur...)
	if !inline && len(cur) > 0 && cur[len(cur)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, content...)
}

// cliPrepend is the app's prepend: content after the frontmatter, then a
// '\n' unless inline, even when content ends with one.
func cliPrepend(cur, content []byte, inline bool) []byte {
	fm := note.FrontmatterEnd(cur)
	at := max(fm, len(note.BOM(cur)))
	out := append([]byte{}, cur[:at]...)
	if fm > 0 && cur[fm-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, content...)
	if !inline {
		out = append(out, '\n')
	}
	return append(out, cur[at:]...)
}

// daily adds to today's daily note, creating it from the template, and
// prints "Added to: <path>" (as the real CLI does).
func (v *vault) daily(c call, out *strings.Builder) {
	content, ok := c.params["content"]
	if !ok {
		fmt.Fprintf(out, "Error: Missing required parameter: content=<text>\nUsage: %s content=<text> [inline] [open]\n", c.command)
		return
	}
	join := cliAppend
	if c.command == "daily:prepend" {
		join = cliPrepend
	}
	p, _, err := v.eng.EnsureDaily(context.Background(), time.Now())
	if err == nil {
		_, err = v.eng.Edit(context.Background(), note.ByPath(p), "", func(cur []byte) ([]byte, error) {
			return join(cur, []byte(content), c.flags["inline"]), nil
		})
	}
	if v.fail(err, p, out) {
		return
	}
	fmt.Fprintf(out, "Added to: %s\n", p)
}

// dailyRead prints today's daily note like read, creating it first from
// the template when it is missing (docs/cli.md §2: reported, not documented).
func (v *vault) dailyRead(out *strings.Builder) {
	p, _, err := v.eng.EnsureDaily(context.Background(), time.Now())
	if v.fail(err, p, out) {
		return
	}
	v.print(p, out)
}

func (v *vault) delete(c call, out *strings.Builder) {
	p, ok := v.locate(c, out)
	if !ok {
		return
	}
	_, err := v.eng.Delete(context.Background(), note.ByPath(p), c.flags["permanent"])
	if v.fail(err, p, out) {
		return
	}
	if c.flags["permanent"] {
		fmt.Fprintf(out, "Deleted permanently: %s\n", p)
		return
	}
	fmt.Fprintf(out, "Moved to trash: %s\n", p)
}

// move moves or renames like the app with "Automatically update internal
// links" on: the engine rewrites the links.
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
	do, verb := v.eng.Move, "Moved"
	if c.command == "rename" {
		do, verb = v.eng.Rename, "Renamed"
	}
	m, err := do(context.Background(), note.ByPath(p), arg)
	if e := errors.From(err); err != nil && e.Kind == errors.FileExists {
		out.WriteString("Error: Destination file already exists!\n")
		return
	}
	if v.fail(err, p, out) {
		return
	}
	fmt.Fprintf(out, "%s: %s -> %s\n", verb, m.From, m.To)
}

// fail prints an engine failure the way the app words it and reports
// whether there was one.
func (v *vault) fail(err error, rel string, out *strings.Builder) bool {
	if err == nil {
		return false
	}
	switch e := errors.From(err); e.Kind {
	case errors.PermissionDenied:
		fmt.Fprintf(out, "Error: EACCES: permission denied, open '%s'\n", v.abs(rel))
	case errors.FileNotFound:
		fmt.Fprintf(out, "Error: File %q not found.\n", rel)
	default:
		fmt.Fprintf(out, "Error: %s\n", e.Message)
	}
	return true
}
