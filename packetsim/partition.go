package packetsim

// partitionDrawsMax bounds the redraws of a UniformPartition that put every
// replica on one side. A redraw happens with chance at most 1/2, so the bound
// is never reached in practice; reaching it is a broken PRNG.
const partitionDrawsMax = 64

// stepPartition runs the random partition state machine: a partition holds at
// least PartitionStabilityTicks before it may heal, and the network stays
// healed at least HealStabilityTicks before it may partition again.
func (n *Network[P]) stepPartition(now uint64) {
	if n.opts.PartitionMode == PartitionNone {
		return
	}
	elapsed := now - n.randomSince
	if n.randomPartitioned {
		if elapsed >= n.opts.PartitionStabilityTicks && n.weather.Chance(n.opts.HealChance) {
			n.setCut(cutRandom, nil)
			n.randomPartitioned, n.randomSince = false, now
			n.stats.Heals++
		}
		return
	}
	if elapsed >= n.opts.HealStabilityTicks && n.weather.Chance(n.opts.PartitionChance) {
		n.drawSides()
		n.cutSides()
		n.randomPartitioned, n.randomSince = true, now
		n.stats.Partitions++
	}
}

// drawSides fills n.sides with a random split of the replicas into two
// non-empty sides, as PartitionMode says.
func (n *Network[P]) drawSides() {
	replicas := n.opts.Replicas
	switch n.opts.PartitionMode {
	case UniformSize:
		k := int(n.weather.Range(1, uint64(replicas-1)))
		for i := range n.order {
			n.order[i] = i
		}
		n.weather.Shuffle(replicas, func(i, j int) { n.order[i], n.order[j] = n.order[j], n.order[i] })
		for i, r := range n.order {
			n.sides[r] = i < k
		}
	case UniformPartition:
		for draw := 0; ; draw++ {
			assert(draw < partitionDrawsMax, "UniformPartition redrew too often")
			a := 0
			for r := range n.sides {
				n.sides[r] = n.weather.Bool()
				if n.sides[r] {
					a++
				}
			}
			if a > 0 && a < replicas {
				break
			}
		}
	case IsolateSingle:
		alone := n.weather.IntN(replicas)
		for r := range n.sides {
			n.sides[r] = r == alone
		}
	default:
		panic("packetsim: drawSides with no partition mode")
	}
}

// cutSides sets the random cut between replicas on different sides: both
// directions, or, when asymmetric, one or both drawn per pair.
func (n *Network[P]) cutSides() {
	for a := 0; a < n.opts.Replicas; a++ {
		for b := a + 1; b < n.opts.Replicas; b++ {
			if n.sides[a] == n.sides[b] {
				continue
			}
			ab, ba := true, true
			if n.opts.PartitionSymmetry == Asymmetric {
				switch n.weather.Uint64N(3) {
				case 0:
					ba = false
				case 1:
					ab = false
				}
			}
			if ab {
				n.links[n.linkIndex(a, b)].cut |= cutRandom
			}
			if ba {
				n.links[n.linkIndex(b, a)].cut |= cutRandom
			}
		}
	}
}

// setCut sets bit on the links between replicas whose groups differ, and clears
// it elsewhere; nil groups clears it everywhere.
func (n *Network[P]) setCut(bit cut, group []int) {
	for a := 0; a < n.opts.Replicas; a++ {
		for b := 0; b < n.opts.Replicas; b++ {
			l := &n.links[n.linkIndex(a, b)]
			l.cut &^= bit
			if group != nil && group[a] != group[b] {
				l.cut |= bit
			}
		}
	}
}

// Partition imposes a scripted symmetric partition, replacing the previous
// scripted one: replicas in different groups cannot talk. A replica listed in
// no group is isolated from all others, so Partition([]NodeID{0, 1}) with three
// replicas cuts 2 off. Groups name replicas only: clients are never
// partitioned. Random partitions go on independently; HealAll ends both.
func (n *Network[P]) Partition(groups ...[]NodeID) {
	group := make([]int, n.opts.Replicas)
	for r := range group {
		group[r] = -1
	}
	for g, ids := range groups {
		for _, id := range ids {
			assert(id >= 0 && id < n.opts.Replicas, "Partition names a node that is not a replica")
			assert(group[id] == -1, "Partition names a replica in two groups")
			group[id] = g
		}
	}
	for r := range group {
		if group[r] == -1 {
			group[r] = len(groups) + r
		}
	}
	n.setCut(cutScripted, group)
}

// Connected reports whether a packet from -> to falling due now would not be
// dropped for a cut: no random or scripted partition and no SetLinkDown cuts
// that direction. Clogs, holds and down nodes delay or drop packets but do not
// count here.
func (n *Network[P]) Connected(from, to NodeID) bool {
	n.checkNode(from)
	n.checkNode(to)
	return n.links[n.linkIndex(from, to)].cut == 0
}

// Partitioned reports whether a random or scripted partition cuts any link
// now. Cuts made by SetLinkDown alone do not count.
func (n *Network[P]) Partitioned() bool {
	for a := 0; a < n.opts.Replicas; a++ {
		for b := 0; b < n.opts.Replicas; b++ {
			if n.links[n.linkIndex(a, b)].cut&(cutRandom|cutScripted) != 0 {
				return true
			}
		}
	}
	return false
}
