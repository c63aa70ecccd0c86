package serve

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
)

// explainTaken says in words that a listen failed because another program
// listens at the address: Go shows Winsock's code alone ("winapi error
// #10048").
func explainTaken(err error) error {
	if errors.Is(err, windows.WSAEADDRINUSE) {
		return fmt.Errorf("the address is already in use (%w)", err)
	}
	return err
}
