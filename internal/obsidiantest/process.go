package obsidiantest

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// GrandchildPID waits for the grandchild of Scenario.Grandchild to write
// its pid to file, and returns it.
func GrandchildPID(t testing.TB, file string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(file); err == nil && len(data) > 0 {
			pid, err := strconv.Atoi(string(data))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", file)
	return 0
}
