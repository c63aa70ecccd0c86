package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/obsidian-mcp/obsidian-mcp/internal/vaultserver"
	"github.com/obsidian-mcp/obsidian-mcp/tools"
)

// manifestFile is the MCPB manifest at the repository root.
var manifestFile = filepath.Join("..", "..", "manifest.json")

type manifestTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type mcpConfig struct {
	Command           string                       `json:"command"`
	Args              []string                     `json:"args"`
	Env               map[string]string            `json:"env"`
	PlatformOverrides map[string]mcpConfigOverride `json:"platform_overrides"`
}

type mcpConfigOverride struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

type manifest struct {
	ManifestVersion string `json:"manifest_version"`
	Name            string `json:"name"`
	Version         string `json:"version"`
	Icon            string `json:"icon"`
	Server          struct {
		Type       string    `json:"type"`
		EntryPoint string    `json:"entry_point"`
		MCPConfig  mcpConfig `json:"mcp_config"`
	} `json:"server"`
	Tools         []manifestTool `json:"tools"`
	Compatibility struct {
		Platforms []string `json:"platforms"`
	} `json:"compatibility"`
	UserConfig map[string]struct {
		Type     string `json:"type"`
		Required bool   `json:"required"`
		Default  any    `json:"default"`
	} `json:"user_config"`
}

func readManifest(t *testing.T) (manifest, []byte) {
	t.Helper()
	data, err := os.ReadFile(manifestFile)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	return m, data
}

func registryTools() []manifestTool {
	var want []manifestTool
	for _, st := range tools.WithoutCommands(tools.All(tools.Vault{})) { // served by default: the commands are opt-in
		want = append(want, manifestTool{st.Tool.Name, st.Tool.Description})
	}
	return want
}

// TestManifestTools: the bundle's tool list is the registry's, names and
// descriptions, in order. `make golden` (-update) rewrites it.
func TestManifestTools(t *testing.T) {
	t.Parallel()
	m, data := readManifest(t)
	want := registryTools()
	if slices.Equal(m.Tools, want) {
		return
	}
	if !*update {
		var names []string
		for _, tl := range m.Tools {
			names = append(names, tl.Name)
		}
		t.Fatalf("manifest.json tools %q differ from the registry's (names or descriptions): run `go test ./internal/app -run TestManifestTools -update` and commit the result", names)
	}
	start, end, err := valueSpan(data, "tools")
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.MarshalIndent(want, "  ", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := slices.Concat(data[:start], body, data[end:])
	if err := os.WriteFile(manifestFile, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// valueSpan finds the bytes of a top-level key's value in a JSON object, so
// one value can be replaced without reformatting the rest of the file.
func valueSpan(data []byte, key string) (start, end int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return 0, 0, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, err
		}
		afterKey := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, err
		}
		if tok == key {
			end = int(dec.InputOffset())
			start = afterKey + bytes.Index(data[afterKey:end], raw[:1])
			return start, end, nil
		}
	}
	return 0, 0, os.ErrNotExist
}

func TestValueSpan(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"a": {"tools": 1}, "tools" :  [1, 2] , "z": 3}`)
	s, e, err := valueSpan(doc, "tools")
	if err != nil || string(doc[s:e]) != "[1, 2]" {
		t.Errorf("valueSpan = %q, %v", doc[s:e], err)
	}
	if _, _, err := valueSpan(doc, "missing"); err == nil {
		t.Error("found a missing key")
	}
}

var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$`)

// TestManifestServer checks what the host runs: the binary, per platform,
// and the environment it gets from the install settings.
func TestManifestServer(t *testing.T) {
	t.Parallel()
	m, _ := readManifest(t)
	if m.ManifestVersion != "0.3" || m.Server.Type != "binary" || !semver.MatchString(m.Version) {
		t.Errorf("manifest_version %q, server.type %q, version %q; want 0.3, binary, semver", m.ManifestVersion, m.Server.Type, m.Version)
	}
	if _, err := os.Stat(filepath.Join("..", "..", m.Icon)); err != nil {
		t.Errorf("icon: %v", err)
	}
	if !slices.Equal(m.Compatibility.Platforms, []string{"darwin", "win32", "linux"}) {
		t.Errorf("platforms = %q", m.Compatibility.Platforms)
	}
	mc := m.Server.MCPConfig
	if mc.Command != "${__dirname}/"+m.Server.EntryPoint {
		t.Errorf("command %q does not run entry_point %q", mc.Command, m.Server.EntryPoint)
	}
	if win := mc.PlatformOverrides["win32"]; win.Command != mc.Command+".exe" {
		t.Errorf("win32 command = %q, want %q", win.Command, mc.Command+".exe")
	}
	for platform, o := range mc.PlatformOverrides {
		if !strings.HasPrefix(o.Command, "${__dirname}/server/") || o.Env != nil || o.Args != nil {
			t.Errorf("%s override %+v: want only a command inside the bundle, sharing env", platform, o)
		}
	}

	envs := map[string]bool{}
	for _, o := range vaultserver.Specs() {
		envs[o.Env] = true
	}
	used := map[string]bool{}
	ref := regexp.MustCompile(`^\$\{user_config\.([a-z_]+)\}$`)
	for name, v := range mc.Env {
		if !envs[name] {
			t.Errorf("env %s is not a variable the server reads", name)
		}
		sub := ref.FindStringSubmatch(v)
		if sub == nil {
			t.Errorf("env %s = %q, want ${user_config.…}", name, v)
			continue
		}
		if _, ok := m.UserConfig[sub[1]]; !ok {
			t.Errorf("env %s uses undeclared user_config.%s", name, sub[1])
		}
		used[sub[1]] = true
	}
	for key, uc := range m.UserConfig {
		if !used[key] {
			t.Errorf("user_config.%s is asked at install but never passed to the server", key)
		}
		// Claude Desktop passes an unfilled field without a default as the
		// literal "${user_config.x}" (mcpb#250).
		if uc.Default == nil || uc.Required {
			t.Errorf("user_config.%s: want optional with a default, got required=%v default=%v", key, uc.Required, uc.Default)
		}
	}
}

// TestManifestDefaultsAreServerDefaults: installing the bundle and filling
// in nothing gives the server's own defaults; filling each field in gives
// the matching setting.
func TestManifestDefaultsAreServerDefaults(t *testing.T) {
	t.Parallel()
	m, _ := readManifest(t)
	env := func(values map[string]any) func(string) string {
		return func(name string) string {
			v, ok := m.Server.MCPConfig.Env[name]
			if !ok {
				return ""
			}
			key := strings.TrimSuffix(strings.TrimPrefix(v, "${user_config."), "}")
			val, ok := values[key]
			if !ok {
				val = m.UserConfig[key].Default
			}
			b, _ := json.Marshal(val) // as the host stringifies: numbers plainly, strings unquoted
			return strings.Trim(string(b), `"`)
		}
	}
	got, err := vaultserver.ParseConfig(nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := vaultserver.ParseConfig(nil, func(string) string { return "" })
	if got.Backend != want.Backend || got.Timeout != want.Timeout || got.Vault != want.Vault || got.VaultPath != want.VaultPath || got.ObsidianBin != want.ObsidianBin {
		t.Errorf("bundle defaults give %+v, server defaults are %+v", got, want)
	}
	dir := t.TempDir()
	got, err = vaultserver.ParseConfig(nil, env(map[string]any{"vault": "Work", "vault_path": dir, "backend": "native", "obsidian_bin": "/opt/o", "timeout": 90}))
	if err != nil || got.Vault != "Work" || got.VaultPath != dir || got.Backend != "native" || got.ObsidianBin != "/opt/o" || got.Timeout != 90*time.Second {
		t.Errorf("filled in: %+v, %v", got, err)
	}
}
