package packetsim

// Tick advances the random faults by one tick: clogs that end at or before now
// open (their packets fall due at now, in order), then, with faults enabled,
// the partition state machine steps and each open link between two replicas
// may clog. Call it once per tick, before Deliver(now).
func (n *Network[P]) Tick(now uint64) {
	n.advance(now)
	assert(!n.ticked || now > n.lastTick, "Tick called twice for one tick")
	n.ticked, n.lastTick = true, now

	n.unclogExpired(now)
	if !n.faults {
		return
	}
	n.stepPartition(now)
	n.clogRandom(now)
}

// unclogExpired opens the clogs that end at or before now. Clogs exist only on
// links between replicas, so only those are scanned.
func (n *Network[P]) unclogExpired(now uint64) {
	if n.clogs == 0 {
		return
	}
	opened := false
	for from := 0; from < n.opts.Replicas; from++ {
		for to := 0; to < n.opts.Replicas; to++ {
			l := &n.links[n.linkIndex(from, to)]
			if l.clogged && l.clogUntil <= now {
				l.clogged, l.clogUntil = false, 0
				n.clogs--
				opened = true
			}
		}
	}
	if opened {
		n.unpark(now)
	}
}

// clogRandom draws, for each open directed link between two distinct
// replicas, whether it clogs now and for how long.
func (n *Network[P]) clogRandom(now uint64) {
	if n.opts.Clog.Zero() {
		return
	}
	for from := 0; from < n.opts.Replicas; from++ {
		for to := 0; to < n.opts.Replicas; to++ {
			l := &n.links[n.linkIndex(from, to)]
			if from == to || l.clogged || !n.weather.Chance(n.opts.Clog) {
				continue
			}
			l.clogged = true
			n.clogs++
			l.clogUntil = now + max(1, n.weather.Exponential(n.opts.ClogMeanTicks))
			n.stats.Clogs++
		}
	}
}

// Clogged reports whether the link from -> to is clogged now.
func (n *Network[P]) Clogged(from, to NodeID) bool {
	n.checkNode(from)
	n.checkNode(to)
	return n.links[n.linkIndex(from, to)].clogged
}
