package testenv

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// StressEnv turns on the stress tier: reproduction loops at full count,
// busy-CPU variants, tests of size and load, fault loops. Without it
// go test ./... is the default tier, which a newcomer runs with Go alone
// (README); .ci/run and make stress turn it on.
const StressEnv = "OBSIDIAN_MCP_TEST_STRESS"

// ClientsEnv turns on the tests that drive programs beside Go (the pinned
// npm clients, curl, Chromium); without it they skip, saying so, and with
// it a missing program fails them (cmd/obsidian-mcp's outside and need).
const ClientsEnv = "OBSIDIAN_MCP_TEST_CLIENTS"

// Clients reports whether the tests that drive outside programs run.
func Clients() bool { return os.Getenv(ClientsEnv) == "1" }

// Stress reports whether the stress tier runs.
func Stress() bool { return os.Getenv(StressEnv) == "1" }

// StressOnly skips t, saying how to run it, unless the stress tier runs.
// A test of the tier calls it on its first line.
func StressOnly(t testing.TB) {
	t.Helper()
	if !Stress() {
		t.Skipf("a stress test (loops, load, size, busy CPU): runs with %s=1 (make stress)", StressEnv)
	}
}

// Rounds is how many times a loop that hunts a rare interleaving runs:
// quick in the default tier, where the loop still proves its path, full
// under the stress switch, where it hunts.
func Rounds(quick, full int) int {
	if Stress() {
		return full
	}
	return quick
}

// MoreAtOnce lets more of a package's parallel tests run at once than
// there are cores (go test's default for -parallel), unless -parallel was
// given: for a TestMain whose tests spend their time waiting on the
// processes they start.
func MoreAtOnce() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
}
