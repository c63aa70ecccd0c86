package app

import (
	"errors"

	"golang.org/x/sys/windows"
)

// addressTaken reports whether a listen failed because another program
// listens at the address: Winsock's own code, which Go shows as "winapi
// error #10048".
func addressTaken(err error) bool { return errors.Is(err, windows.WSAEADDRINUSE) }
