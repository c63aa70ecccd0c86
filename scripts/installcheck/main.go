// Command installcheck proves that the README's install line works as a
// user would run it. The line is
//
//	go install github.com/obsidian-mcp/obsidian-mcp/cmd/obsidian-mcp@latest
//
// It publishes the checkout's committed tree (HEAD) as a new version of the
// module on a module proxy made of files (GOPROXY=file://…, the layout the
// go command reads: @v/list, .info, .mod, .zip), puts that proxy before the
// public one, and runs `go install …@latest` in an empty folder, outside
// this module, as a user would. The binary it builds must then start and
// answer initialize. A replace directive, a copied dependency or a file
// missing from the commit makes it fail, as they make the real install
// fail.
//
// Run it from the repository: go run ./scripts/installcheck
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

const modulePath = "github.com/obsidian-mcp/obsidian-mcp"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "installcheck:", err)
		os.Exit(1)
	}
}

func run() error {
	repo, err := os.Getwd()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "installcheck-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	// A version no cache holds yet, above every real one: @latest must
	// find it.
	version := fmt.Sprintf("v0.99.%d", time.Now().Unix())
	proxy := filepath.Join(work, "proxy")
	if err := publish(repo, proxy, version); err != nil {
		return err
	}

	gobin := filepath.Join(work, "bin")
	outside := filepath.Join(work, "user")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		return err
	}
	public := goEnv("GOPROXY")
	cmd := exec.Command("go", "install", modulePath+"/cmd/obsidian-mcp@latest")
	cmd.Dir = outside
	cmd.Env = append(os.Environ(),
		"GOBIN="+gobin,
		"GOPROXY=file://"+filepath.ToSlash(proxy)+","+public,
		// The module is not public: no checksum database knows it.
		"GONOSUMDB="+modulePath,
		"GOFLAGS=-modcacherw",
		"GOWORK=off",
	)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	fmt.Printf("go install %s/cmd/obsidian-mcp@latest  (%s from the file proxy, GOPROXY=file://…,%s)\n", modulePath, version, public)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go install failed: %v\n%s", err, out.String())
	}
	bin := filepath.Join(gobin, "obsidian-mcp")
	if _, err := os.Stat(bin); err != nil {
		bin += ".exe"
	}
	return answers(bin, filepath.Join(repo, "examples", "vault"))
}

// publish writes version of the module, made of the files committed at
// HEAD in repo, to a file-based module proxy at dir.
func publish(repo, dir, version string) error {
	at := filepath.Join(dir, filepath.FromSlash(modulePath), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	mod := module.Version{Path: modulePath, Version: version}
	z, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		return err
	}
	// Only what is committed: an untracked file the build needs fails here
	// as it fails for users.
	if err := zip.CreateFromVCS(z, mod, repo, "HEAD", ""); err != nil {
		z.Close()
		return fmt.Errorf("zipping HEAD: %v", err)
	}
	if err := z.Close(); err != nil {
		return err
	}
	gomod, err := exec.Command("git", "-C", repo, "show", "HEAD:go.mod").Output()
	if err != nil {
		return fmt.Errorf("go.mod at HEAD: %v", err)
	}
	info, _ := json.Marshal(map[string]string{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	for name, data := range map[string][]byte{version + ".mod": gomod, version + ".info": info, "list": []byte(version + "\n")} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// answers starts the installed server on vault and waits for its answer
// to initialize.
func answers(bin, vault string) error {
	cmd := exec.Command(bin, "--backend", "native", "--vault-path", vault, "--read-only")
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"installcheck","version":"1"}}}`+"\n"); err != nil {
		return err
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(outPipe).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		if !strings.Contains(s, `"serverInfo"`) {
			return fmt.Errorf("the installed server answered %q\n%s", s, stderr.String())
		}
		fmt.Printf("ok: the installed binary answered initialize: %.120s\n", s)
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("the installed server did not answer initialize within 30 s\n%s", stderr.String())
	}
}

func goEnv(key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		return "https://proxy.golang.org,direct"
	}
	return strings.TrimSpace(string(out))
}
