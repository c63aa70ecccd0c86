package native

import (
	"errors"
	"io/fs"
	"time"

	"golang.org/x/sys/windows"
)

// careful does op as a careful Windows program does: again, for up to
// 10 s, while another program's handle refuses it (a sharing violation:
// the engine keeps writers out while it reads a note and while it swaps
// one, for microseconds) or while the note's name is absent (between a
// swap's two renames). docs/data-safety.md, "By platform".
func careful(op func() error) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := op()
		if err == nil || time.Now().After(deadline) ||
			!errors.Is(err, windows.ERROR_SHARING_VIOLATION) && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		time.Sleep(time.Millisecond)
	}
}
