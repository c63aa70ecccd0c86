//go:build !windows

package app

import (
	"errors"
	"syscall"
)

// addressTaken reports whether a listen failed because another program
// listens at the address.
func addressTaken(err error) bool { return errors.Is(err, syscall.EADDRINUSE) }
