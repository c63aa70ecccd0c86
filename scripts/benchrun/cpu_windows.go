package main

import (
	"math"
	"time"

	"golang.org/x/sys/windows"
)

// cpuSeconds is the CPU time this process has used, user and kernel.
func cpuSeconds() float64 {
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user) != nil {
		return math.NaN()
	}
	// Filetimes count 100 ns ticks.
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return (time.Duration(ticks(kernel)+ticks(user)) * 100).Seconds()
}
