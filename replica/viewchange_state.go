package replica

import "vsrsim/vsr"

// viewChange is the view change room of a replica's state (issue 36): the
// requests to leave its view, the votes it collected, the merge it made, the
// body the merge waits on, its cached vote, and its probes of a newer view.
// The handlers in viewchange.go, leave.go, merge.go and await_body.go act on
// it; enter starts a view afresh.
type viewChange struct {
	// vcRounds counts view changes entered in a row without reaching Normal:
	// each doubles the status timeout (capped), so a view change whose round
	// trips outlast the timeout completes eventually.
	vcRounds uint64
	leave    uint16 // replicas that asked to leave this view (or a newer one) within the window (see leave.go)
	leaveTo  uint64 // the view those requests move this replica to
	svcFrom  uint16 // replicas whose StartViewChange for this view arrived
	dvcs     [vsr.ReplicasMax]dvcVote
	dvcSent  bool
	merged   bool
	// mergeSources holds, per uncommitted op of the merged log, which
	// voters hold its body.
	mergeSources []uint16
	// awaitBody is the canonical header of the op the merge waits on for a
	// body no voter holds (zero when it waits on nothing of the kind): the
	// primary-elect asks the replicas whose votes are not in for it.
	awaitBody vsr.Header
	// dvcCache is this replica's last vote's suffix, valid while
	// dvcCacheTag matches (dvcCacheOK).
	dvcCache    []vsr.SuffixEntry
	dvcCacheTag dvcCacheTag
	dvcCacheOK  bool
	// oldPrimaryHB: an older view's primary heartbeat this replica during
	// this view change.
	oldPrimaryHB bool
	probeNonce   uint64
	probedView   uint64 // the newer view this replica last asked its primary for
	// quorumWindow: a replica leaves its view only when a quorum asks to,
	// within a window (set once at the making; off for a source system
	// whose single StartViewChange pulls any replica along).
	quorumWindow bool
}

// enter starts a new view's change: no request to leave it, no vote, no
// merge, nothing awaited. The rounds, the cached vote and the probes span
// views.
func (v *viewChange) enter(self, n int) {
	v.leave, v.leaveTo, v.svcFrom = 0, 0, 0
	for i := range v.dvcs {
		v.dvcs[i] = dvcVote{}
	}
	v.dvcSent, v.merged = false, false
	v.mergeSources = v.mergeSources[:0]
	v.awaitBody = vsr.Header{}
	v.oldPrimaryHB = false
	v.check(self, n)
}

// vote records replica from's DoViewChange.
func (v *viewChange) vote(self, n, from int, d dvcVote) {
	vsr.Assert(self, from >= 0 && from < n && d.valid, "view_change_vote_from_the_cluster", "from %d", uint64(from))
	v.dvcs[from] = d
	v.check(self, n)
}

// votes counts the DoViewChange votes recorded.
func (v *viewChange) votes() int {
	k := 0
	for i := range v.dvcs {
		if v.dvcs[i].valid {
			k++
		}
	}
	return k
}

// check asserts what the room always holds: requests and votes come from
// replicas of the cluster only, and a merge is made of votes.
func (v *viewChange) check(self, n int) {
	vsr.Assert(self, v.leave>>uint(n) == 0 && v.svcFrom>>uint(n) == 0, "view_change_bits_in_cluster", "leave %d svc %d",
		uint64(v.leave), uint64(v.svcFrom))
	for i := n; i < vsr.ReplicasMax; i++ {
		vsr.Assert(self, !v.dvcs[i].valid, "view_change_votes_in_cluster", "from %d", uint64(i))
	}
	vsr.Assert(self, !v.merged || v.votes() > 0, "view_change_merge_of_votes", vsr.DetailHolds)
}
