package room

import "vsrsim/vsr"

// Forwarding is a backup's watch over its primary once it forwarded a
// client's request (awaitForwarded), and over telling the primary its commit
// point unasked (tellCommitToPrimary): one room of a replica's state (issue 36).
type Forwarding struct {
	// Waiting: a request was forwarded and the primary has not been seen to
	// act since; commit is the commit point this backup knew then.
	Waiting bool
	Commit  uint64
	// ToldCommitAt is one past the tick this backup last told its primary
	// its commit point unasked.
	ToldCommitAt uint64
	// BackupReplies: a backup answers clients too (the op's reply backup,
	// and a retried request from its client table); set once at the
	// replica's making, off for a source system without it.
	BackupReplies bool
}

// Forwarded starts the watch at commit point commit, unless one is running.
func (f *Forwarding) Forwarded(commit uint64) {
	if f.Waiting {
		return
	}
	f.Waiting, f.Commit = true, commit
}

// PrimaryCommitted ends the watch when the primary's commit point passed
// the one this backup knew when it forwarded: the primary hears a quorum.
func (f *Forwarding) PrimaryCommitted(commit uint64) {
	if commit > f.Commit {
		f.Waiting = false
	}
}

// TellCommitDue reports whether this backup may tell its primary its commit
// point at tick now (at most once per period ticks), and if so notes it.
func (f *Forwarding) TellCommitDue(now, period uint64) bool {
	if last := f.ToldCommitAt; last != 0 && now < last+period {
		return false
	}
	f.ToldCommitAt = now + 1
	return true
}

// Check asserts what the watch always holds at tick now: a commit point is
// told at most one tick ahead of the clock that noted it.
func (f *Forwarding) Check(self int, now uint64) {
	vsr.Assert(self, f.ToldCommitAt <= now+1, "forwarding_told_in_the_past", "told %d now %d", f.ToldCommitAt, now)
}
