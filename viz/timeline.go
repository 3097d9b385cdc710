package viz

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"slices"

	"vsrsim/sim"
)

// Timeline geometry, in SVG user units (pixels at 100%).
const (
	tlWidth      = 1400
	tlLeft       = 80
	tlRight      = 20
	tlTop        = 50
	tlLane       = 60
	tlDropsLane  = 50
	tlStatusH    = 22
	tlCommitTop  = 28
	tlCommitH    = 26
	tlDropBucket = 4 // pixels per drop histogram bar
)

var statusColors = map[string]string{
	"normal":      "#43a047",
	"view_change": "#fb8c00",
	"recovering":  "#8e24aa",
	"crashed":     "#9e9e9e",
}

var dropColors = []struct{ reason, color string }{
	{"loss", "#e53935"}, {"partition", "#1e88e5"}, {"capacity", "#6d4c41"},
	{"filter", "#00897b"}, {"crashed", "#757575"},
}

// WriteTimeline draws the run as an SVG: per replica, its status and view over
// virtual time as coloured bands, its commit_min (solid) and commit_max
// (dashed) below them, crashes and restarts as markers; a histogram of network
// drops by reason; the liveness phase and scenario notes as vertical lines.
func WriteTimeline(out io.Writer, c *Collector, res *sim.Result) error {
	c.Finish()
	plotW := float64(tlWidth - tlLeft - tlRight)
	end := float64(max(c.End, 1))
	t := &timeline{
		w:         bufio.NewWriter(out),
		c:         c,
		x:         func(ts uint64) float64 { return tlLeft + float64(ts)/end*plotW },
		commitMax: c.commitMax(),
	}
	t.header(res)
	for i := 0; i < c.Replicas; i++ {
		t.replica(i)
	}
	dropsTop := float64(tlTop + c.Replicas*tlLane)
	writeDrops(t.w, c, t.x, dropsTop, plotW)
	bottom := dropsTop + tlDropsLane
	t.clusterMarks(bottom)
	writeAxis(t.w, c, t.x, bottom)
	fmt.Fprintf(t.w, "</svg>\n")
	return t.w.Flush()
}

// timeline is one SVG being drawn: x maps a time to its abscissa, and
// commitMax tops the commit scale, shared by every replica so that their
// lines compare.
type timeline struct {
	w         *bufio.Writer
	c         *Collector
	x         func(uint64) float64
	commitMax uint64
}

// commitMax is the highest commit_max any replica reached, at least 1 so that
// the scale never divides by zero.
func (c *Collector) commitMax() uint64 {
	var top uint64 = 1
	for _, points := range c.Commits {
		for _, p := range points {
			top = max(top, p.Max)
		}
	}
	return top
}

// header opens the SVG and writes the run's seed, verdict and evidence.
func (t *timeline) header(res *sim.Result) {
	height := tlTop + t.c.Replicas*tlLane + tlDropsLane + 70
	fmt.Fprintf(t.w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		tlWidth, height, tlWidth, height)
	fmt.Fprintf(t.w, `<title>vsrsim seed 0x%x: %s</title>`+"\n", res.Seed, html.EscapeString(string(res.Verdict)))
	fmt.Fprintf(t.w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(t.w, `<text x="%d" y="20" font-size="14" font-weight="bold">seed 0x%x %s: %s %s</text>`+"\n",
		tlLeft, res.Seed, html.EscapeString(res.Scenario), html.EscapeString(string(res.Verdict)), html.EscapeString(res.Invariant))
	fmt.Fprintf(t.w, `<text x="%d" y="36" fill="#555">%s</text>`+"\n", tlLeft, html.EscapeString(clipText(res.Evidence, 200)))
}

// replica draws replica i's lane: status bands, commit lines, crash and
// restart markers.
func (t *timeline) replica(i int) {
	top := float64(tlTop + i*tlLane)
	fmt.Fprintf(t.w, `<g class="replica" id="r%d">`+"\n", i)
	fmt.Fprintf(t.w, `<text x="10" y="%.1f" font-size="13" font-weight="bold">%s</text>`+"\n", top+16, t.c.Node(i))
	fmt.Fprintf(t.w, `<text x="10" y="%.1f" fill="#555">commit</text>`+"\n", top+tlCommitTop+16)
	t.spans(i, top)
	t.commits(i, top)
	t.replicaMarks(i, top)
	fmt.Fprintf(t.w, "</g>\n")
}

// spans draws replica i's status over time, one band per span, labelled
// with its view where the band is wide enough.
func (t *timeline) spans(i int, top float64) {
	for _, s := range t.c.Spans[i] {
		x0, x1 := t.x(s.From), t.x(s.To)
		color, ok := statusColors[s.Status]
		if !ok {
			color = "#546e7a"
		}
		label := s.Status
		if s.Status != "crashed" {
			label = fmt.Sprintf("%s v=%d", s.Status, s.View)
		}
		fmt.Fprintf(t.w, `<rect x="%.2f" y="%.1f" width="%.2f" height="%d" fill="%s"><title>%s, ticks %d..%d</title></rect>`+"\n",
			x0, top, max(x1-x0, 0.5), tlStatusH, color, label, Tick(s.From), Tick(s.To))
		if s.Status != "crashed" && x1-x0 > 30 {
			fmt.Fprintf(t.w, `<text x="%.2f" y="%.1f" fill="white">v%d</text>`+"\n", x0+3, top+15, s.View)
		}
	}
}

// commits draws replica i's commit_max (dashed) and commit_min (solid) as
// step lines, held to the end of the run, and its last commit_max.
func (t *timeline) commits(i int, top float64) {
	ys := func(v uint64) float64 {
		return top + tlCommitTop + tlCommitH - float64(v)/float64(t.commitMax)*tlCommitH
	}
	fmt.Fprintf(t.w, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", tlLeft, tlWidth-tlRight, ys(0), ys(0))
	points := t.c.Commits[i]
	for _, series := range []struct {
		pick func(CommitPoint) uint64
		dash string
	}{{func(p CommitPoint) uint64 { return p.Max }, ` stroke-dasharray="4 2"`}, {func(p CommitPoint) uint64 { return p.Min }, ""}} {
		fmt.Fprintf(t.w, `<polyline fill="none" stroke="#1a237e" stroke-width="1.2"%s points="`, series.dash)
		prev := 0.0
		for k, p := range points {
			// A step: hold the previous value up to this point, then rise.
			if k > 0 {
				fmt.Fprintf(t.w, "%.2f,%.2f ", t.x(p.At), prev)
			}
			prev = ys(series.pick(p))
			fmt.Fprintf(t.w, "%.2f,%.2f ", t.x(p.At), prev)
		}
		if len(points) > 0 {
			fmt.Fprintf(t.w, "%.2f,%.2f", t.x(t.c.End), prev)
		}
		fmt.Fprintf(t.w, "\"/>\n")
	}
	if n := len(points); n > 0 {
		fmt.Fprintf(t.w, `<text x="%d" y="%.1f" fill="#1a237e" text-anchor="end">%d</text>`+"\n", tlWidth-tlRight, top+tlCommitTop+10, points[n-1].Max)
	}
}

// replicaMarks draws replica i's crashes (red) and restarts (green).
func (t *timeline) replicaMarks(i int, top float64) {
	for _, m := range t.c.Marks {
		if m.Replica != i {
			continue
		}
		color := "#c62828"
		if m.Kind == "restart" {
			color = "#2e7d32"
		}
		fmt.Fprintf(t.w, `<path d="M%.2f %.1f l-4 -7 h8 z" fill="%s"><title>%s %s at tick %d</title></path>`+"\n",
			t.x(m.At), top, color, m.Kind, t.c.Node(i), Tick(m.At))
	}
}

// clusterMarks draws the marks of no replica as vertical lines down to
// bottom: the start of the liveness phase (labelled) and scenario notes.
func (t *timeline) clusterMarks(bottom float64) {
	for _, m := range t.c.Marks {
		if m.Replica >= 0 {
			continue
		}
		mx := t.x(m.At)
		stroke, dash := "#999", "2 3"
		if m.Kind == "phase" {
			stroke, dash = "#000", "6 3"
			fmt.Fprintf(t.w, `<text x="%.2f" y="%d" fill="#000">liveness phase</text>`+"\n", mx+3, tlTop-4)
		}
		fmt.Fprintf(t.w, `<line x1="%.2f" x2="%.2f" y1="%d" y2="%.1f" stroke="%s" stroke-dasharray="%s"><title>%s</title></line>`+"\n",
			mx, mx, tlTop-2, bottom, stroke, dash, html.EscapeString(m.Text))
	}
}

func writeDrops(w *bufio.Writer, c *Collector, x func(uint64) float64, top, plotW float64) {
	buckets := int(plotW) / tlDropBucket
	counts := make([][]int, buckets)
	for k := range counts {
		counts[k] = make([]int, len(dropColors))
	}
	peak := 1
	for _, p := range c.Packets {
		if !p.Dropped {
			continue
		}
		b := min(int((x(p.Done)-tlLeft)/tlDropBucket), buckets-1)
		r := slices.IndexFunc(dropColors, func(d struct{ reason, color string }) bool { return d.reason == p.Reason })
		if r < 0 {
			continue
		}
		counts[b][r]++
		total := 0
		for _, n := range counts[b] {
			total += n
		}
		peak = max(peak, total)
	}
	fmt.Fprintf(w, `<g class="drops"><text x="10" y="%.1f" font-size="13" font-weight="bold">drops</text>`+"\n", top+16)
	fmt.Fprintf(w, `<text x="10" y="%.1f" fill="#555">peak %d</text>`+"\n", top+30, peak)
	h := float64(tlDropsLane - 10)
	for b, row := range counts {
		y := top + h
		for r, n := range row {
			if n == 0 {
				continue
			}
			bh := float64(n) / float64(peak) * h
			y -= bh
			fmt.Fprintf(w, `<rect x="%d" y="%.2f" width="%d" height="%.2f" fill="%s"><title>%d %s</title></rect>`+"\n",
				tlLeft+b*tlDropBucket, y, tlDropBucket-1, bh, dropColors[r].color, n, dropColors[r].reason)
		}
	}
	fmt.Fprintf(w, "</g>\n")
}

func writeAxis(w *bufio.Writer, c *Collector, x func(uint64) float64, y float64) {
	fmt.Fprintf(w, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#000"/>`+"\n", tlLeft, tlWidth-tlRight, y, y)
	endTick := Tick(c.End)
	step := niceStep(endTick / 8)
	for t := uint64(0); t <= endTick; t += step {
		tx := x(t * subTicks)
		fmt.Fprintf(w, `<line x1="%.2f" x2="%.2f" y1="%.1f" y2="%.1f" stroke="#000"/><text x="%.2f" y="%.1f" text-anchor="middle">%d</text>`+"\n",
			tx, tx, y, y+4, tx, y+16, t)
	}
	fmt.Fprintf(w, `<text x="%d" y="%.1f" fill="#555">ticks</text>`+"\n", tlWidth-tlRight-30, y+30)
	lx := float64(tlLeft)
	for _, s := range []string{"normal", "view_change", "recovering", "crashed"} {
		fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="12" height="10" fill="%s"/><text x="%.1f" y="%.1f">%s</text>`+"\n",
			lx, y+36, statusColors[s], lx+16, y+45, s)
		lx += 110
	}
	fmt.Fprintf(w, `<text x="%.1f" y="%.1f">commit_min solid, commit_max dashed; red/green markers: crash/restart</text>`+"\n", lx, y+45)
	lx = tlLeft
	for _, d := range dropColors {
		fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="12" height="10" fill="%s"/><text x="%.1f" y="%.1f">drop: %s</text>`+"\n",
			lx, y+52, d.color, lx+16, y+61, d.reason)
		lx += 110
	}
}

// niceStep rounds a tick interval up to 1, 2 or 5 times a power of ten.
func niceStep(raw uint64) uint64 {
	step := uint64(1)
	for {
		for _, m := range []uint64{1, 2, 5} {
			if step*m >= raw {
				return step * m
			}
		}
		step *= 10
	}
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
