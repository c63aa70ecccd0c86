//go:build !unix

package atomicfile

import "os"

// openRead opens name for reading (Windows has no FIFOs in the file
// system to wait on).
func openRead(root *os.Root, name string) (*os.File, error) { return root.Open(name) }
