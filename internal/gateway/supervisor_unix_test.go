//go:build unix

package gateway

import (
	"bytes"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alive reports whether pid runs (a zombie, dead but not yet reaped by
// whoever inherited it, does not count).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust kill
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// TestCommandStopKillsGroup: at stop, the server gets end of input and
// SIGTERM, and whatever it started in its group goes with it.
func TestCommandStopKillsGroup(t *testing.T) {
	ns, log := fakeNamespace(t, "fake")
	r := startGatewayWith(t, "namespaces:\n"+ns, fastBackoff)
	_, body := do(t, http.MethodPost, r.api+"/mcp/fake", call(1, "child", `{}`))
	i := strings.Index(body, `"text":"`)
	if i < 0 {
		t.Fatalf("child: %s", body)
	}
	child, _ := strconv.Atoi(body[i+len(`"text":"`) : i+len(`"text":"`)+strings.IndexByte(body[i+len(`"text":"`):], '"')])
	server, _ := strconv.Atoi(strings.TrimPrefix(fakeLog(t, log)[0], "start "))
	if !alive(child) || !alive(server) {
		t.Fatalf("not running: server %d, child %d", server, child)
	}
	r.stop()
	select {
	case <-r.done:
		r.done <- nil
	case <-time.After(15 * time.Second):
		t.Fatal("not stopped")
	}
	deadline := time.Now().Add(5 * time.Second)
	for (alive(child) || alive(server)) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(child) || alive(server) {
		t.Errorf("still running after stop: server %v, child %v", alive(server), alive(child))
	}
	if got := fakeLog(t, log); got[len(got)-1] != "eof" {
		t.Errorf("the server did not see its input end first: %q", got)
	}
	if h := r.g.spaces["fake"].peer.health(); h.Status != "no subprocess" {
		t.Errorf("health after stop: %+v", h)
	}
}

// stoppedAfterProbe: the probed process is gone once Probe returns.
func stoppedAfterProbe(t *testing.T, pid int) {
	t.Helper()
	if alive(pid) {
		t.Errorf("the probed server (pid %d) still runs", pid)
	}
}
