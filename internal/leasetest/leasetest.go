// Package leasetest writes files in place the way another program does,
// for tests of code that holds Linux read leases (internal/atomicfile):
// such a write's open waits in the kernel while the lease is held, so a
// test cannot make it on the goroutine that holds the lease. Save makes
// it on another goroutine and returns once it is either done or seen
// waiting on the lease, which is the moment the code under test must
// notice.
package leasetest

import (
	"os"
	"time"
)

// Save writes content to the file p in place (open for writing,
// truncate, write, close) on another goroutine. It returns once that write
// is done, or waits on a lease of the file (Linux; elsewhere it waits for
// the write), or 5 s have passed; wait then blocks until the write is done
// and returns its error.
func Save(p string, content []byte) (wait func() error) {
	ino := inode(p)
	done := make(chan error, 1)
	go func() { done <- os.WriteFile(p, content, 0o644) }()
	var err error
	finished := false
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		select {
		case err = <-done:
			finished = true
		default:
		}
		if finished || waiting(ino) {
			break
		}
	}
	return func() error {
		if finished {
			return err
		}
		return <-done
	}
}
