//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// openRead opens name for reading without waiting: a FIFO named like a
// note would otherwise block the open until some program writes to it
// (it is then refused as not a regular file).
func openRead(root *os.Root, name string) (*os.File, error) {
	return root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
