package serve

import (
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/obsidian-mcp/obsidian-mcp/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Isolated{M: m}.Run()) }

// TestBuildRevision: meta.git_sha is never empty: the commit, else the
// module version, else "unknown".
func TestBuildRevision(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}}}, true, "0123456789ab"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, true, "v1.4.0"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "unknown"},
		{nil, false, "unknown"},
	} {
		if got := buildRevision(tc.bi, tc.ok); got != tc.want {
			t.Errorf("buildRevision(%+v) = %q, want %q", tc.bi, got, tc.want)
		}
	}
}

// TestTakenPortSaysWhatToDo: serve on a port already taken fails saying
// how to choose another.
func TestTakenPortSaysWhatToDo(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	vault := t.TempDir()
	cfg, err := ParseConfig([]string{"--backend", "native", "--vault-path", vault, "--listen", ln.Addr().String()}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	err = Run(t.Context(), cfg, slog.New(slog.DiscardHandler), "test", nil)
	if err == nil || !strings.Contains(err.Error(), "already in use") || !strings.Contains(err.Error(), "choose another address with --listen (OBSIDIAN_MCP_LISTEN)") {
		t.Errorf("serve on a taken port: %v", err)
	}
}
