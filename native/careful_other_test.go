//go:build !windows

package native

// careful does op once: elsewhere no handle refuses another program's
// open, and a note always has its name (careful_windows_test.go).
func careful(op func() error) error { return op() }
