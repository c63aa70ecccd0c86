//go:build !linux

package atomicfile

import "os"

// swap puts the file at tmp in name's place by renaming it: only Linux can
// exchange two names atomically and hand back the displaced file.
func swap(root *os.Root, tmp, name string) (exchanged bool, err error) {
	return false, root.Rename(tmp, name)
}
