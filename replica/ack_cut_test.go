package replica

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"vsrsim/vsr"
)

// TestAdoptedLogBelowOldAcksCutsThem (D103): a backup whose acks were all
// given in view 4, up to op 7, adopts view 6's log of head 4 and then view
// 7's log of head 6. Its ack head comes down to 4 at the first install and
// stays there, so a restart's faulty slot 5 (view 7's op 5, never acked
// here) is empty, not unsure: the swarm seed 501875568 from 0x1dea0000
// held it unsure and no view completed. A log installed at or above the ack
// head, or in the ack view itself, cuts nothing.
func TestAdoptedLogBelowOldAcksCutsThem(t *testing.T) {
	hs := chainHeaders(7, 0)
	adopt := func(sb Superblock, view, head uint64) *Replica {
		r, _ := walBackup(t)
		r.dur.sb = sb
		r.view, r.logView = sb.View, sb.LogView
		r.dur.ackHead = sb.AckHead
		sv := vsr.StartView{Op: head, Commit: 0}
		for op := head; op >= 1; op-- {
			sv.Suffix = append(sv.Suffix, headerOnly(hs[op]))
		}
		r.adoptStartView(view, sv)
		return r
	}
	acked := Superblock{View: 5, LogView: 4, AckView: 4, AckViewHead: 7, AckHead: 7, Head: 7}

	r := adopt(acked, 6, 4)
	assert.Equal(t, uint64(4), r.dur.sb.AckHead, "view 6's log of head 4 cuts the acks of view 4 above it")
	assert.Equal(t, uint64(4), r.dur.sb.AckViewHead)
	assert.Equal(t, uint64(4), r.dur.ackHead, "this life's ack head comes down with it")
	cut := r.dur.sb
	r = adopt(cut, 7, 6)
	assert.Equal(t, uint64(4), r.dur.sb.AckHead, "a later log reaching above the cut does not lift it")
	assert.Equal(t, uint64(4), ackBound(&r.dur.sb))
	held := r.holdFaulty(diskRecovery{slots: 64, broken: []brokenSlot{{slot: 5, read: slotRead{class: slotFaulty}}}})
	require.True(t, held)
	assert.Empty(t, r.log.unsureOps, "op 5 of view 7's log lies above every ack that could have committed anything")

	for _, c := range []struct {
		name       string
		view, head uint64
		sb         Superblock
	}{
		{"a log reaching the ack head", 6, 7, acked},
		{"a log of the ack view itself", 4, 3, Superblock{View: 4, LogView: 3, AckView: 4, AckViewHead: 7, AckHead: 7, Head: 7}},
	} {
		r := adopt(c.sb, c.view, c.head)
		assert.Equal(t, uint64(7), r.dur.sb.AckHead, c.name)
	}
}

// TestInstalledLogForkingFromTheAckedChainCutsAbove (D103): a replica whose
// journal is the log it acked ops 1..6 in (view 0) installs a log that
// replaces op 3 with another primary's, by a StartView or by its own merge
// as primary-elect: its acks may cover ops 1..2 of the new log, no more
// (robust-d00d-3490591812.vsr). A journal of a newer log_view than the
// acks, or a log that keeps the acked chain, moves nothing.
func TestInstalledLogForkingFromTheAckedChainCutsAbove(t *testing.T) {
	acked := chainHeaders(6, 0)
	other := append([]vsr.Header(nil), acked[:3]...)
	parent := acked[2].Checksum
	for op := uint64(3); op <= 6; op++ {
		h := vsr.Header{Op: op, View: 1, Parent: parent, Timestamp: 100 + op, Body: put(uint32(op), 100+op)}
		h.Seal()
		other = append(other, h)
		parent = h.Checksum
	}
	holding := func(logView uint64) *Replica {
		r, _ := walBackup(t)
		for op := 1; op <= 6; op++ {
			require.True(t, r.journalPut(acked[op], true))
		}
		r.wm.sequencer, r.wm.headSum = 6, acked[6].Checksum
		r.view, r.logView = 2, logView
		r.dur.sb = Superblock{View: 2, LogView: logView, AckView: 0, AckViewHead: 6, AckHead: 6, Head: 6}
		r.dur.ackHead = 6
		return r
	}
	startView := func(hs []vsr.Header) vsr.StartView {
		sv := vsr.StartView{Op: 6}
		for op := 6; op >= 1; op-- {
			sv.Suffix = append(sv.Suffix, headerOnly(hs[op]))
		}
		return sv
	}
	for _, c := range []struct {
		name    string
		logView uint64
		log     []vsr.Header
		want    uint64
	}{
		{"a log replacing op 3 of the acked chain", 0, other, 2},
		{"a log keeping the acked chain", 0, acked, 6},
		{"a journal of a log_view newer than the acks", 1, other, 6},
	} {
		r := holding(c.logView)
		r.adoptStartView(3, startView(c.log))
		assert.Equal(t, c.want, r.dur.sb.AckHead, "StartView: %s", c.name)
		assert.LessOrEqual(t, r.dur.ackHead, r.dur.sb.AckHead, c.name)

		r = holding(c.logView)
		r.view = 3
		assert.Equal(t, c.want, min(uint64(6), r.installCanonical(0, 6, c.log[1:])), "merge: %s", c.name)
	}
}
