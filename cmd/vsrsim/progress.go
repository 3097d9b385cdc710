package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress draws one status line on stderr while a sweep runs, only when
// stderr is a terminal: piped or captured output stays clean.
type progress struct {
	w        io.Writer
	on       bool
	total    uint64
	done     uint64
	failed   uint64
	started  time.Time
	drawn    time.Time
	visible  bool
	interval time.Duration
}

func newProgress(w io.Writer, total uint64) *progress {
	p := &progress{w: w, total: total, started: time.Now(), interval: 200 * time.Millisecond}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

func (p *progress) step(failed bool) {
	p.done++
	if failed {
		p.failed++
	}
	if !p.on {
		return
	}
	if now := time.Now(); now.Sub(p.drawn) >= p.interval || p.done == p.total {
		p.drawn = now
		rate := float64(p.done) / max(now.Sub(p.started).Seconds(), 1e-9)
		fmt.Fprintf(p.w, "\r\033[K%d/%d runs  %d failed  %.0f runs/s", p.done, p.total, p.failed, rate)
		p.visible = true
	}
}

// clear erases the status line before other output.
func (p *progress) clear() {
	if p.visible {
		fmt.Fprint(p.w, "\r\033[K")
		p.visible = false
	}
}
