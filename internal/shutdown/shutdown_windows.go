package shutdown

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/windows"
)

// requested waits on the event in a goroutine of its own, until it is
// set or the returned function is called.
func requested(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	name, err := windows.UTF16PtrFromString(EventName(os.Getpid()))
	if err != nil {
		return ctx, cancel
	}
	// Manual reset: once set it stays set, so a request that comes
	// before the wait starts is not missed.
	asked, err := windows.CreateEvent(nil, 1, 0, name)
	if err != nil {
		return ctx, cancel // stops by Ctrl+C and Ctrl+Break only
	}
	done, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		_ = windows.CloseHandle(asked)
		return ctx, cancel
	}
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		got, _ := windows.WaitForMultipleObjects([]windows.Handle{asked, done}, false, windows.INFINITE)
		if got == windows.WAIT_OBJECT_0 {
			cancel()
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			_ = windows.SetEvent(done)
			<-waited
			_ = windows.CloseHandle(asked)
			_ = windows.CloseHandle(done)
			cancel()
		})
	}
}

// ask opens pid's event and sets it, trying again until wait has passed
// while the process has not made it yet.
func ask(pid int, wait time.Duration) error {
	name, err := windows.UTF16PtrFromString(EventName(pid))
	if err != nil {
		return err
	}
	for deadline := time.Now().Add(wait); ; time.Sleep(5 * time.Millisecond) {
		ev, err := windows.OpenEvent(windows.EVENT_MODIFY_STATE, false, name)
		if err == nil {
			defer windows.CloseHandle(ev)
			return windows.SetEvent(ev)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("process %d made no stop event within %v: %w", pid, wait, err)
		}
	}
}
