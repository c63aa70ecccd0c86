//go:build !fallback

package leasetest

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// inode is p's inode number, 0 if it cannot be read.
func inode(p string) uint64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// waiting reports whether /proc/locks shows an open waiting on a lease of
// the file with inode ino (a "-> LEASE BREAKER" line under that lease).
func waiting(ino uint64) bool {
	if ino == 0 {
		return false
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return false
	}
	defer f.Close()
	tag := ":" + strconv.FormatUint(ino, 10) + " "
	ours := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "->") {
			if ours && strings.Contains(line, "BREAKER") {
				return true
			}
			continue
		}
		ours = strings.Contains(line, "LEASE") && strings.Contains(line, tag)
	}
	return false
}
