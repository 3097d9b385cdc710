package replica

import "vsrsim/vsr"

// forwarding is a backup's watch over its primary once it forwarded a
// client's request (awaitForwarded), and over telling the primary its commit
// point unasked (tellCommitToPrimary): one room of a replica's state (issue 36).
type forwarding struct {
	// waiting: a request was forwarded and the primary has not been seen to
	// act since; commit is the commit point this backup knew then.
	waiting bool
	commit  uint64
	// toldCommitAt is one past the tick this backup last told its primary
	// its commit point unasked.
	toldCommitAt uint64
}

// forwarded starts the watch at commit point commit, unless one is running.
func (f *forwarding) forwarded(commit uint64) {
	if f.waiting {
		return
	}
	f.waiting, f.commit = true, commit
}

// primaryCommitted ends the watch when the primary's commit point passed
// the one this backup knew when it forwarded: the primary hears a quorum.
func (f *forwarding) primaryCommitted(commit uint64) {
	if commit > f.commit {
		f.waiting = false
	}
}

// tellCommitDue reports whether this backup may tell its primary its commit
// point at tick now (at most once per period ticks), and if so notes it.
func (f *forwarding) tellCommitDue(now, period uint64) bool {
	if last := f.toldCommitAt; last != 0 && now < last+period {
		return false
	}
	f.toldCommitAt = now + 1
	return true
}

// check asserts what the watch always holds at tick now: a commit point is
// told at most one tick ahead of the clock that noted it.
func (f *forwarding) check(self int, now uint64) {
	vsr.Assert(self, f.toldCommitAt <= now+1, "forwarding_told_in_the_past", "told %d now %d", f.toldCommitAt, now)
}
