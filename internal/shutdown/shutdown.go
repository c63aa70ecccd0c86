// Package shutdown lets another program ask this one to stop where the
// system has no signal for it: on Windows, a named event. Windows has no
// signal one program sends another: Ctrl+C and Ctrl+Break reach only the
// processes on the sender's console, and TerminateProcess gives no chance
// to finish calls, close listeners and end the CLI processes started. A
// service wrapper, a scheduler or a test can set an event by name.
package shutdown

import (
	"context"
	"fmt"
	"time"
)

// EventName is the name of the event that asks process pid to stop on
// Windows: open it with EVENT_MODIFY_STATE and set it, and the process
// stops as on Ctrl+Break. Local\ keeps it to the user's session.
func EventName(pid int) string { return fmt.Sprintf(`Local\obsidian-mcp-stop-%d`, pid) }

// Requested returns a context that also ends when this process is asked
// to stop by its event (Windows; elsewhere parent itself, signals do it),
// and the function that stops watching; it may be called more than once.
func Requested(parent context.Context) (context.Context, context.CancelFunc) {
	return requested(parent)
}

// Ask asks process pid to stop by its event, waiting up to wait for the
// process to have made it (it does so as it starts). It is for Windows,
// where a wrapper or a test has no signal to send; elsewhere it says to
// send SIGTERM.
func Ask(pid int, wait time.Duration) error { return ask(pid, wait) }
