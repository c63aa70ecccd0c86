// Command bundlecheck verifies an unpacked MCPB bundle the way a host would
// use it. For each platform's resolved mcp_config (from resolve-config.mjs)
// it checks that the command exists in the bundle, is executable, and is a
// binary for that platform: a universal Mach-O with amd64 and arm64 slices,
// a console-subsystem amd64 PE, a Linux launcher with static ELF binaries
// for amd64 and arm64. Then it starts the configuration for this machine and
// talks MCP to it: initialize, tools/list (against the manifest's tools) and
// a tool call, and checks a clean exit when stdin closes.
//
// Usage: bundlecheck -dir <unpacked> -version <v> config.json...
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

type config struct {
	Platform string            `json:"platform"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
}

type manifest struct {
	Version string `json:"version"`
	Tools   []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

func main() {
	dir := flag.String("dir", "", "the unpacked bundle")
	version := flag.String("version", "", "the version the binaries must report")
	platform := flag.String("run", hostPlatform(), "the platform whose configuration is started (darwin, win32, linux)")
	runner := flag.String("exec", "", "a program to start it through (scripts/wine-exec for win32 on Linux)")
	edits := flag.Bool("edits", false, "with a vault folder, edit the vault through the server (editSession) and check every link resolves after")
	flag.Parse()
	if *dir == "" || *version == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: bundlecheck -dir <unpacked> -version <v> config.json...")
		os.Exit(2)
	}
	var m manifest
	if err := readJSON(filepath.Join(*dir, "manifest.json"), &m); err != nil {
		fail("manifest: %v", err)
	}
	if m.Version != *version {
		fail("manifest version %s, want %s", m.Version, *version)
	}
	var tools []string
	for _, t := range m.Tools {
		tools = append(tools, t.Name)
	}
	ran := 0
	checked := map[string]bool{}
	for _, file := range flag.Args() {
		var c config
		if err := readJSON(file, &c); err != nil {
			fail("%s: %v", file, err)
		}
		rel, err := filepath.Rel(*dir, c.Command)
		if err != nil || strings.HasPrefix(rel, "..") {
			fail("%s: command %s is outside the bundle", c.Platform, c.Command)
		}
		if !checked[c.Command] {
			if err := checkBinary(c.Platform, c.Command); err != nil {
				fail("%s: %s: %v", c.Platform, rel, err)
			}
			fmt.Printf("ok   %-6s %s is %s\n", c.Platform, rel, describe(c.Platform))
			checked[c.Command] = true
		}
		if c.Platform == *platform {
			if err := run(c, *runner, *version, tools, *edits); err != nil {
				fail("%s: running %s with env %v: %v", c.Platform, rel, c.Env, err)
			}
			ran++
		}
	}
	if ran == 0 {
		fail("no configuration for this machine (%s/%s) was run", runtime.GOOS, runtime.GOARCH)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "FAIL "+format+"\n", args...)
	os.Exit(1)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

func hostPlatform() string {
	if runtime.GOOS == "windows" {
		return "win32"
	}
	return runtime.GOOS
}

func describe(platform string) string {
	return map[string]string{
		"darwin": "a universal Mach-O (x86_64 + arm64, arm64 signed)",
		"win32":  "a console amd64 PE",
		"linux":  "a launcher for static amd64 and arm64 ELF binaries",
	}[platform]
}

func checkBinary(platform, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if platform != "win32" && fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("not executable (mode %v): hosts cannot start it", fi.Mode())
	}
	switch platform {
	case "darwin":
		return checkUniversal(path)
	case "win32":
		return checkPE(path)
	case "linux":
		return checkLauncher(path)
	}
	return fmt.Errorf("unknown platform")
}

// lcCodeSignature is LC_CODE_SIGNATURE: Apple silicon refuses to run an
// arm64 binary without at least an ad-hoc signature, which Go's linker adds.
const lcCodeSignature = 0x1d

func checkUniversal(path string) error {
	ff, err := macho.OpenFat(path)
	if err != nil {
		return fmt.Errorf("not a universal binary: %v", err)
	}
	defer ff.Close()
	cpus := map[macho.Cpu]bool{}
	for _, a := range ff.Arches {
		cpus[a.Cpu] = true
		if a.Type != macho.TypeExec {
			return fmt.Errorf("%v slice is not an executable", a.Cpu)
		}
		if a.Cpu == macho.CpuArm64 {
			if err := checkSignature(path, a); err != nil {
				return fmt.Errorf("arm64 slice: %v; macOS would kill it", err)
			}
		}
	}
	if !cpus[macho.CpuAmd64] || !cpus[macho.CpuArm64] || len(ff.Arches) != 2 {
		return fmt.Errorf("slices %v, want amd64 and arm64", cpus)
	}
	return nil
}

// checkSignature verifies the arm64 slice's ad-hoc signature: every page
// hash in its code directory must match the slice's bytes as they are in the
// universal file, so packing the slices did not invalidate it.
func checkSignature(path string, a macho.FatArch) error {
	var dataoff, datasize uint32
	for _, l := range a.File.Loads {
		raw := l.Raw()
		if len(raw) >= 16 && a.File.ByteOrder.Uint32(raw) == lcCodeSignature {
			dataoff, datasize = a.File.ByteOrder.Uint32(raw[8:]), a.File.ByteOrder.Uint32(raw[12:])
		}
	}
	if datasize == 0 {
		return fmt.Errorf("no code signature")
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	slice := make([]byte, a.Size)
	if _, err := f.ReadAt(slice, int64(a.Offset)); err != nil {
		return err
	}
	if uint64(dataoff)+uint64(datasize) > uint64(len(slice)) {
		return fmt.Errorf("signature outside the slice")
	}
	sig := slice[dataoff : dataoff+datasize]
	be := binary.BigEndian
	const superBlob, codeDirectory = 0xfade0cc0, 0xfade0c02
	if len(sig) < 12 || be.Uint32(sig) != superBlob {
		return fmt.Errorf("signature is not a code signing superblob")
	}
	for i := range be.Uint32(sig[8:]) {
		entry := 12 + 8*int(i)
		if entry+8 > len(sig) {
			break
		}
		off := be.Uint32(sig[entry+4:])
		if int(off)+44 > len(sig) || be.Uint32(sig[off:]) != codeDirectory {
			continue
		}
		cd := sig[off:]
		hashOffset, nCodeSlots, codeLimit := be.Uint32(cd[16:]), be.Uint32(cd[28:]), be.Uint32(cd[32:])
		hashSize, hashType, pageShift := cd[36], cd[37], cd[39]
		if hashType != 2 || hashSize != sha256.Size { // kSecCodeSignatureHashSHA256
			return fmt.Errorf("code directory hash type %d, want SHA-256", hashType)
		}
		if codeLimit != dataoff {
			return fmt.Errorf("code limit %d does not end at the signature (%d)", codeLimit, dataoff)
		}
		page := uint32(1) << pageShift
		for slot := range nCodeSlots {
			start := slot * page
			end := min(start+page, codeLimit)
			want := cd[hashOffset+slot*uint32(hashSize):][:hashSize]
			if got := sha256.Sum256(slice[start:end]); !bytes.Equal(got[:], want) {
				return fmt.Errorf("page %d of the signed code does not match its hash", slot)
			}
		}
		return nil
	}
	return fmt.Errorf("no code directory in the signature")
}

func checkPE(path string) error {
	f, err := pe.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		return fmt.Errorf("machine %#x, want amd64 (Windows on ARM runs it emulated)", f.Machine)
	}
	oh, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok || oh.Subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_CUI {
		return fmt.Errorf("not a console program: its stdio would not reach the host")
	}
	return nil
}

// checkLauncher checks the Linux launcher script and the binaries it picks.
func checkLauncher(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(data, []byte("#!/bin/sh\n")) {
		return fmt.Errorf("not a /bin/sh launcher")
	}
	for arch, machine := range map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64} {
		bin := filepath.Join(filepath.Dir(path), "obsidian-mcp-"+arch)
		if !bytes.Contains(data, []byte("obsidian-mcp-"+arch)) {
			return fmt.Errorf("launcher does not start %s", filepath.Base(bin))
		}
		fi, err := os.Stat(bin)
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o111 == 0 {
			return fmt.Errorf("%s is not executable", filepath.Base(bin))
		}
		f, err := elf.Open(bin)
		if err != nil {
			return err
		}
		static := true
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				static = false
			}
		}
		f.Close()
		if f.Machine != machine || !static {
			return fmt.Errorf("%s: machine %v static %v, want %v static", filepath.Base(bin), f.Machine, static, machine)
		}
	}
	return nil
}

// run starts the configuration as a host would, with a minimal environment
// (hosts such as Claude Desktop give servers little more than PATH), and
// speaks MCP to it.
func run(c config, runner, version string, tools []string, edits bool) error {
	command := func(args ...string) *exec.Cmd {
		if runner != "" {
			return exec.Command(runner, append([]string{c.Command}, args...)...)
		}
		return exec.Command(c.Command, args...)
	}
	out, err := command("--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "obsidian-mcp "+version {
		return fmt.Errorf("--version = %q, %v; want obsidian-mcp %s", out, err, version)
	}
	start := time.Now()
	s, err := startSession(command(c.Args...), c.Env)
	if err != nil {
		return err
	}
	defer s.cmd.Process.Kill()
	if err := s.initialize(version); err != nil {
		return err
	}
	initialized := time.Since(start)
	names, err := s.listTools(tools)
	if err != nil {
		return err
	}
	call := "skipped (no vault folder configured)"
	if vault := c.Env["OBSIDIAN_VAULT_PATH"]; vault != "" {
		if call, err = s.useVault(vault, edits); err != nil {
			return err
		}
	}
	if err := s.endOnEOF(); err != nil {
		return err
	}
	var env []string
	for k, v := range c.Env {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	slices.Sort(env)
	fmt.Printf("ok   %-6s ran with %v: initialize in %v, %d tools listed as in the manifest, %s, exit 0 on EOF\n",
		c.Platform, env, initialized.Round(time.Millisecond), len(names), call)
	return nil
}

// session is a server started over stdio, its answers read as they come.
type session struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  *bytes.Buffer
	answers chan map[string]json.RawMessage
}

// startSession starts cmd with a host's minimal environment and env.
func startSession(cmd *exec.Cmd, env map[string]string) (*session, error) {
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + os.TempDir()}
	// What the -exec runner needs of this environment (scripts/wine-exec:
	// the Wine root, the folders to bind).
	for _, k := range []string{"OBSIDIAN_MCP_WINE_ROOT", "OBSIDIAN_MCP_WINE_BIND"} {
		if v := os.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	s := &session{cmd: cmd, stderr: &bytes.Buffer{}, answers: make(chan map[string]json.RawMessage, 16)}
	cmd.Stderr = s.stderr
	s.stdin, _ = cmd.StdinPipe()
	stdoutPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		sc := bufio.NewScanner(stdoutPipe)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var msg map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &msg) == nil {
				s.answers <- msg
			}
		}
		close(s.answers)
	}()
	return s, nil
}

func (s *session) send(line string) { io.WriteString(s.stdin, line+"\n") }

// await is the answer with id, or why there is none within 30 s.
func (s *session) await(id string) (map[string]json.RawMessage, error) {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case msg, ok := <-s.answers:
			if !ok {
				return nil, fmt.Errorf("stdout closed before answer %s; stderr:\n%s", id, s.stderr.String())
			}
			if string(msg["id"]) == id {
				if e, bad := msg["error"]; bad {
					return nil, fmt.Errorf("answer %s is an error: %s", id, e)
				}
				return msg, nil
			}
		case <-timeout:
			return nil, fmt.Errorf("no answer %s in 30s; stderr:\n%s", id, s.stderr.String())
		}
	}
}

// initialize opens the MCP session; the server must report version.
func (s *session) initialize(version string) error {
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bundlecheck","version":"1"}}}`)
	msg, err := s.await("1")
	if err != nil {
		return err
	}
	var init struct {
		ServerInfo struct{ Name, Version string } `json:"serverInfo"`
	}
	json.Unmarshal(msg["result"], &init)
	if init.ServerInfo.Version != version {
		return fmt.Errorf("initialize reports version %q, want %q", init.ServerInfo.Version, version)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return nil
}

// listTools checks that tools/list gives the manifest's tools.
func (s *session) listTools(tools []string) ([]string, error) {
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	msg, err := s.await("2")
	if err != nil {
		return nil, err
	}
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	json.Unmarshal(msg["result"], &list)
	var names []string
	for _, t := range list.Tools {
		names = append(names, t.Name)
	}
	// tools/list is in name order; the manifest in the registry's.
	if !slices.Equal(names, slices.Sorted(slices.Values(tools))) {
		return nil, fmt.Errorf("tools/list gives %q, the manifest lists %q", names, tools)
	}
	return names, nil
}

// useVault reads a note of the vault through the server and, with
// edits, edits the vault (editSession); it says what it did.
func (s *session) useVault(vault string, edits bool) (string, error) {
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"obsidian_file_info","arguments":{"path":"Welcome.md"}}}`)
	msg, err := s.await("3")
	if err != nil {
		return "", err
	}
	if !bytes.Contains(msg["result"], []byte(`Welcome.md`)) {
		return "", fmt.Errorf("file_info answered %s", msg["result"])
	}
	call := "obsidian_file_info answered from the vault folder"
	if edits {
		n, err := editSession(s.send, s.await, vault)
		if err != nil {
			return "", err
		}
		call += fmt.Sprintf("; %d edits made, every link resolving after", n)
	}
	return call, nil
}

// endOnEOF closes stdin: the server must exit 0 within 10 s.
func (s *session) endOnEOF() error {
	s.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("exit after stdin closed: %v; stderr:\n%s", err, s.stderr.String())
		}
	case <-time.After(10 * time.Second):
		return fmt.Errorf("still running 10s after stdin closed")
	}
	return nil
}
