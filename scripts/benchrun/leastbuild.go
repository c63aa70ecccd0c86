package main

import (
	"hash/maphash"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// leastBuild is what any search index build must do at the least, timed
// beside ours to say what a goal such as "within 3× of reading every note
// once" leaves room for: read every note (on every core), cut its bytes
// into lower-cased words, count each note's distinct words in a flat
// table, look each up in one dictionary and append a posting to its list.
// No metadata, no positions, no Unicode folding, no snapshot. The best of
// three passes, page cache warm: wall milliseconds and CPU-seconds.
func leastBuild(dir string) (wallMS, cpuS float64, err error) {
	var notes []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			notes = append(notes, p)
		}
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	wallMS, cpuS = math.Inf(1), math.Inf(1)
	for range 3 {
		t0, c0 := time.Now(), cpuSeconds()
		if err := invert(notes); err != nil {
			return 0, 0, err
		}
		wallMS, cpuS = min(wallMS, ms(time.Since(t0))), min(cpuS, cpuSeconds()-c0)
	}
	return wallMS, cpuS, nil
}

// counted is one note's distinct words and how often each occurs.
type counted struct {
	words  []string
	counts []uint8
}

// invert builds the postings of notes: batches of 256 counted on every
// core while the batch before is merged into the dictionary.
func invert(notes []string) error {
	const batch = 256
	seed := maphash.MakeSeed()
	dict := map[string]uint32{}
	var lists [][]byte
	var firstErr error
	var errOnce sync.Once
	count := func(from int) []counted {
		part := notes[from:min(len(notes), from+batch)]
		out := make([]counted, len(part))
		var next sync.Mutex
		i := 0
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for {
					next.Lock()
					k := i
					i++
					next.Unlock()
					if k >= len(part) {
						return
					}
					data, err := os.ReadFile(part[k])
					if err != nil {
						errOnce.Do(func() { firstErr = err })
						return
					}
					out[k] = countWords(seed, data)
				}
			})
		}
		wg.Wait()
		return out
	}
	cur := count(0)
	doc := 0
	for from := 0; from < len(notes); from += batch {
		var next []counted
		var wg sync.WaitGroup
		if from+batch < len(notes) {
			wg.Go(func() { next = count(from + batch) })
		}
		for _, c := range cur {
			for i, w := range c.words {
				t, ok := dict[w]
				if !ok {
					t = uint32(len(lists))
					dict[w] = t
					lists = append(lists, nil)
				}
				lists[t] = append(lists[t], byte(doc), c.counts[i])
			}
			doc++
		}
		wg.Wait()
		cur = next
	}
	return firstErr
}

// countWords cuts data into words (runs of ASCII letters and digits, and
// of non-ASCII bytes) and counts them in an open-addressing table.
func countWords(seed maphash.Seed, data []byte) counted {
	var c counted
	slots := make([]int32, 1024)
	word := make([]byte, 0, 64)
	place := func(w string, l int32) {
		mask := uint64(len(slots) - 1)
		i := maphash.String(seed, w) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = l + 1
	}
	end := func() {
		if len(word) == 0 || len(word) > 64 {
			word = word[:0]
			return
		}
		mask := uint64(len(slots) - 1)
		for i := maphash.Bytes(seed, word) & mask; ; i = (i + 1) & mask {
			s := slots[i]
			if s == 0 {
				c.words = append(c.words, string(word))
				c.counts = append(c.counts, 1)
				slots[i] = int32(len(c.words))
				if 2*len(c.words) > len(slots) {
					slots = make([]int32, 2*len(slots))
					for l, w := range c.words {
						place(w, int32(l))
					}
				}
				break
			}
			if c.words[s-1] == string(word) {
				if c.counts[s-1] < 255 {
					c.counts[s-1]++
				}
				break
			}
		}
		word = word[:0]
	}
	for _, b := range data {
		switch {
		case 'a' <= b && b <= 'z', '0' <= b && b <= '9', b >= 0x80:
			word = append(word, b)
		case 'A' <= b && b <= 'Z':
			word = append(word, b+'a'-'A')
		default:
			end()
		}
	}
	end()
	return c
}
