package main

import (
	"fmt"
	"strings"

	"vsrsim/fuzz"
)

// plot draws coverage against runs for both sides, one panel per kind of
// feature, as a hand-written SVG (D36: pictures are drawn by hand).
func plot(blind, guided reach) string {
	panels := []struct {
		title string
		value func(p fuzz.Point) int
	}{
		{"abstract states", func(p fuzz.Point) int { return p.States }},
		{"mark pairs", func(p fuzz.Point) int { return p.Pairs }},
		{"marks", func(p fuzz.Point) int { return p.Marks }},
	}
	const w, h, pad = 300, 220, 45
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n",
		len(panels)*(w+pad)+pad, h+2*pad)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	for i, pn := range panels {
		x0, y0 := pad+i*(w+pad), pad
		maxX, maxY := 1, 1
		for _, r := range []*reach{&blind, &guided} {
			for _, p := range r.sum.Curve {
				maxX, maxY = max(maxX, p.Runs), max(maxY, pn.value(p))
			}
		}
		fmt.Fprintf(&b, `<g transform="translate(%d,%d)">`+"\n", x0, y0)
		fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="none" stroke="#888"/>`+"\n", w, h)
		fmt.Fprintf(&b, `<text x="%d" y="-8" text-anchor="middle" font-weight="bold">%s</text>`+"\n", w/2, pn.title)
		fmt.Fprintf(&b, `<text x="-4" y="10" text-anchor="end">%d</text><text x="-4" y="%d" text-anchor="end">0</text>`+"\n", maxY, h)
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%d runs</text>`+"\n", w, h+14, maxX)
		for _, side := range []struct {
			r     *reach
			color string
		}{{&blind, "#1f77b4"}, {&guided, "#d62728"}} {
			var pts []string
			for _, p := range side.r.sum.Curve {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", float64(p.Runs)*w/float64(maxX), h-float64(pn.value(p))*h/float64(maxY)))
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", side.color, strings.Join(pts, " "))
		}
		b.WriteString("</g>\n")
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#1f77b4">swarm (seeds 1, 2, 3, ...)</text>`+"\n", pad, h+2*pad-8)
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#d62728">guided search (seed 1)</text>`+"\n", pad+220, h+2*pad-8)
	b.WriteString("</svg>\n")
	return b.String()
}
