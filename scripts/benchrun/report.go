package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// quantile is the q-quantile of xs by the nearest-rank method.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

// report prints one vault's figures as Markdown tables.
func report(w io.Writer, notes int, res []result) {
	fmt.Fprintf(w, "\n### %d notes\n\n", notes)
	fmt.Fprintln(w, "Median / p95 in ms; RSS in MB.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| server | start→initialize | tools/list | ping | read | create | append | idle RSS | peak RSS |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|")
	cell := func(xs []float64) string {
		if len(xs) == 0 {
			return "–"
		}
		return fmt.Sprintf("%s / %s", num(quantile(xs, 0.5)), num(quantile(xs, 0.95)))
	}
	mb := func(v float64) string {
		if v == 0 {
			return "–"
		}
		return fmt.Sprintf("%.1f", v)
	}
	for _, r := range res {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Server, cell(r.Samples["start"]), cell(r.Samples["tools/list"]),
			cell(r.Samples["ping"]), cell(r.Samples["read"]), cell(r.Samples["create"]), cell(r.Samples["append"]), mb(r.IdleMB), mb(r.PeakMB))
	}
	var native, floor *result
	for i := range res {
		switch res[i].Server {
		case "obsidian-mcp (native)":
			native = &res[i]
		case "floor":
			floor = &res[i]
		}
	}
	if native != nil {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "How many times faster obsidian-mcp (native) is, median against median:")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| against | start→initialize | tools/list | ping | read | create | append |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, r := range res {
			if r.Server == "floor" || strings.HasPrefix(r.Server, "obsidian-mcp (") {
				continue
			}
			row := "| " + r.Server
			for _, k := range []string{"start", "tools/list", "ping", "read", "create", "append"} {
				row += " | " + ratio(r.Samples[k], native.Samples[k])
			}
			fmt.Fprintln(w, row+" |")
		}
		if floor != nil {
			fmt.Fprintf(w, "\nstart→initialize against the floor: %s× the floor's time (target: within 4×).\n",
				num(quantile(native.Samples["start"], 0.5)/quantile(floor.Samples["start"], 0.5)))
		}
	}
	for _, r := range res {
		if r.Execs == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s, per operation: CLI commands per call; the call; the same commands run bare right after it; the server's overhead, call minus its bare run (median / p95 of the pairs):\n\n", r.Server)
		fmt.Fprintln(w, "| operation | commands | call | bare exec | overhead |")
		fmt.Fprintln(w, "|---|---|---|---|---|")
		for _, k := range []string{"read", "create", "append"} {
			fmt.Fprintf(w, "| %s | %.0f | %s | %s | %s |\n", k, r.Execs[k], cell(r.Samples[k]), cell(r.Samples[k+" bare"]), cell(r.Samples[k+" overhead"]))
		}
	}
}

func ratio(peer, ours []float64) string {
	if len(peer) == 0 || len(ours) == 0 {
		return "–"
	}
	return num(quantile(peer, 0.5)/quantile(ours, 0.5)) + "×"
}

func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// msCell is a table cell: the q-quantile of samples in milliseconds, or a
// dash when there are none.
func msCell(samples []float64, q float64) string {
	if len(samples) == 0 {
		return "—"
	}
	return num(quantile(samples, q)) + " ms"
}
