package replica

import (
	"testing"
	"vsrsim/vsr"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sealed(op, view uint64, key uint32) vsr.Header {
	h := vsr.Header{Op: op, View: view, Parent: op * 7, Commit: op - 1, Client: 1, Request: op, Timestamp: op,
		Body: vsr.Operation{Kind: vsr.OpPut, Key: key, Value: op}}
	h.Seal()
	return h
}

func headerCopy(slot int, h vsr.Header) recordRead {
	b := make([]byte, vsr.HeaderRecordBytes)
	encodeEntry(b, recordHeader, slot, &h)
	return readRecord(b, false, vsr.ZoneHeaders, slot, 64, false)
}

func prepareCopy(slot int, h vsr.Header) recordRead {
	b := make([]byte, vsr.PrepareRecordBytes)
	encodeEntry(b, recordPrepare, slot, &h)
	return readRecord(b, false, vsr.ZonePrepares, slot, 64, false)
}

func blankCopy(z vsr.StorageZone, slot int) recordRead { return blankOf(recordBlank, z, slot) }

// asideCopy is the blank of a slot whose op was set aside below the commit
// point.
func asideCopy(z vsr.StorageZone, slot int) recordRead { return blankOf(recordAside, z, slot) }

func blankOf(blank uint64, z vsr.StorageZone, slot int) recordRead {
	b := make([]byte, vsr.PrepareRecordBytes)
	kind := recordHeader
	if z == vsr.ZonePrepares {
		kind = recordPrepare
	}
	encodeBlank(b, blank, kind, slot, 0)
	return readRecord(b, false, z, slot, 64, false)
}

// The slot table of recovery: what each pair of copies a crash or a fault
// can leave is read as.
func TestClassify(t *testing.T) {
	a, a2, older := sealed(70, 3, 1), sealed(70, 5, 2), sealed(6, 1, 3)
	none := recordRead{kind: recordNone}
	bad := recordRead{bad: true}
	tests := []struct {
		name   string
		h, p   recordRead
		class  slotClass
		op     uint64
		header bool
	}{
		{"both agree", headerCopy(6, a), prepareCopy(6, a), slotIntact, 70, false},
		{"never written", none, none, slotEmpty, 0, false},
		{"both blank", blankCopy(vsr.ZoneHeaders, 6), blankCopy(vsr.ZonePrepares, 6), slotEmpty, 0, false},
		{"header lags the prepare (crash between them)", headerCopy(6, older), prepareCopy(6, a), slotIntact, 70, false},
		{"header not yet written", none, prepareCopy(6, a), slotIntact, 70, false},
		{"header unreadable, prepare verifies", bad, prepareCopy(6, a), slotIntact, 70, false},
		{"header names a newer op: the prepare's write went astray", headerCopy(6, a), prepareCopy(6, older), slotFaulty, 0, true},
		{"same op, newer view in the header", headerCopy(6, a2), prepareCopy(6, a), slotFaulty, 0, true},
		{"prepare unreadable", headerCopy(6, a), bad, slotFaulty, 0, true},
		{"blank prepare beside an op's header", headerCopy(6, a), blankCopy(vsr.ZonePrepares, 6), slotFaulty, 0, true},
		{"prepare never written beside an op's header", headerCopy(6, a), none, slotFaulty, 0, true},
		// A header lands only after its prepare: an unreadable one beside an
		// empty prepare slot is an op whose prepare went astray (misdirected),
		// which the replica may have acked (fuzz finding
		// disk-misdirected-acked-op-nacked).
		{"header unreadable, prepare never written", bad, none, slotFaulty, 0, false},
		{"header unreadable, prepare blank", bad, blankCopy(vsr.ZonePrepares, 6), slotFaulty, 0, false},
		// A set-aside op may have committed with the commit point that
		// says so still in flight: the slot is not empty.
		{"both set aside", asideCopy(vsr.ZoneHeaders, 6), asideCopy(vsr.ZonePrepares, 6), slotFaulty, 0, false},
		{"set aside, header copy in flight", headerCopy(6, a), asideCopy(vsr.ZonePrepares, 6), slotFaulty, 0, true},
		// A new op's prepare beside a set-aside header copy or a blank:
		// either the op's header write never landed or the blank of the
		// prepare copy was lost (the op is stale): faulty, the prepare the
		// candidate the log must vouch for (D93).
		{"set-aside header beside a new op's prepare", asideCopy(vsr.ZoneHeaders, 6), prepareCopy(6, a), slotFaulty, 0, true},
		{"blank header beside a new op's prepare", blankCopy(vsr.ZoneHeaders, 6), prepareCopy(6, a), slotFaulty, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := classify(tc.h, tc.p, false)
			assert.Equal(t, tc.class, s.class)
			assert.Equal(t, tc.op, s.entry.Op)
			assert.Equal(t, tc.header, s.hasHeader)
			if s.hasHeader && tc.h.kind != recordHeader {
				assert.Equal(t, tc.p.header, s.header, "no header copy: the prepare is the candidate")
			}
		})
	}
}

// A restart whose head slot holds the head's prepare beside a blank header
// copy (the disk lost the header copy's write over an older removal)
// vouches for the prepare as the head the superblock names, instead of
// recovering its head (D93; swarm seed 3520034509 from 0xd1ce0000: a core
// replica recovering its head could not lead, and views climbed for the
// whole liveness phase).
func TestHeadPrepareBesideABlankIsVouched(t *testing.T) {
	chain := boundedChain(6)
	r, _ := walBackup(t)
	for op := uint64(1); op <= 5; op++ {
		require.True(t, r.journalPut(chain[op], true))
	}
	r.wm.sequencer, r.wm.headSum, r.wm.commitMax = 6, chain[6].Checksum, 5
	r.dur.sb.AckHead, r.dur.sb.AckViewHead, r.dur.sb.Head = 6, 6, 6
	s := classify(blankCopy(vsr.ZoneHeaders, 6), prepareCopy(6, chain[6]), false)
	require.Equal(t, slotFaulty, s.class)
	require.True(t, r.holdFaulty(diskRecovery{slots: 64, broken: []brokenSlot{{slot: 6, read: s}}}), "the head is known")
	assert.True(t, r.log.journal.Has(6, chain[6].Checksum), "the prepare the superblock's head names is journaled")
	assert.Empty(t, r.log.unsureOps)
}

// A record read back from another slot fails; under checksum-ignores-slot it
// passes and stands in for the slot's op.
func TestMisdirectedRecord(t *testing.T) {
	n := sealed(71, 3, 9)
	m := sealed(70, 3, 4)
	b := make([]byte, vsr.PrepareRecordBytes)
	encodeEntry(b, recordPrepare, 7, &n) // meant for slot 7, landed in slot 6
	r := readRecord(b, false, vsr.ZonePrepares, 6, 64, false)
	assert.True(t, r.bad)
	assert.True(t, r.foreign)
	s := classify(headerCopy(6, m), r, false)
	assert.Equal(t, slotFaulty, s.class)

	r = readRecord(b, false, vsr.ZonePrepares, 6, 64, true)
	require.False(t, r.bad)
	s = classify(headerCopy(6, m), r, true)
	assert.Equal(t, slotIntact, s.class)
	assert.Equal(t, uint64(70), s.entry.Op, "the defect takes the record for the slot's op")
	assert.Equal(t, n.Checksum, s.entry.Checksum, "with another op's checksum and body")
}

// A damaged or torn record never verifies.
func TestDamagedRecordFails(t *testing.T) {
	a := sealed(70, 3, 1)
	b := make([]byte, vsr.PrepareRecordBytes)
	encodeEntry(b, recordPrepare, 6, &a)
	for i := range b[:64] {
		b[i] = 0xDB
	}
	assert.True(t, readRecord(b, false, vsr.ZonePrepares, 6, 64, false).bad)
	assert.True(t, readRecord(nil, true, vsr.ZonePrepares, 6, 64, false).bad, "an I/O error")
}

// The superblock reader takes the newest copy whose checksum holds and which
// names its own copy index; a disk never written reads as genesis.
func TestReadSuperblock(t *testing.T) {
	copies := make([][]byte, vsr.SuperblockCopies)
	write := func(c int, seq, view uint64) {
		var shared recWords
		superblockWords(&shared, seq, &Superblock{View: view})
		w := superblockCopy(shared, checksumFold(shared.w[:shared.n]), c)
		copies[c] = make([]byte, vsr.SuperblockRecordBytes)
		w.put(copies[c])
	}
	read := func(z vsr.StorageZone, slot int) ([]byte, bool) {
		if copies[slot] == nil {
			return make([]byte, vsr.SuperblockRecordBytes), false
		}
		return copies[slot], false
	}
	sb, _, ok, _ := readSuperblock(read)
	require.True(t, ok, "never written: genesis")
	assert.Equal(t, genesisSnapshot().OpChecksum, sb.Checkpoint.OpChecksum)

	for c := 0; c < vsr.SuperblockCopies; c++ {
		write(c, 4, 2)
	}
	write(1, 5, 3)
	write(2, 5, 3)
	copies[2][9] ^= 1 // a torn copy of seq 5
	sb, seq, ok, bad := readSuperblock(read)
	require.True(t, ok)
	assert.Equal(t, uint64(5), seq)
	assert.Equal(t, uint64(3), sb.View)
	assert.Equal(t, 1, bad)

	copies[3] = append([]byte(nil), copies[1]...) // copy 1's bytes in slot 3
	_, _, _, bad = readSuperblock(read)
	assert.Equal(t, 2, bad, "a copy read from another index fails")
}

// A superblock copy folded from the shared words of its version carries the
// checksum a whole-record fold gives: the reader's check is the same.
func TestSuperblockCopyChecksum(t *testing.T) {
	var shared recWords
	superblockWords(&shared, 7, &Superblock{View: 3, Head: 9})
	for c := 0; c < vsr.SuperblockCopies; c++ {
		w := superblockCopy(shared, checksumFold(shared.w[:shared.n]), c)
		require.Equal(t, superblockRecordWords+1, w.n)
		assert.Equal(t, recordChecksum(w.w[:w.n-1]), w.w[w.n-1], "copy %d", c)
	}
}

// A superblock written while amnesiac after every copy was lost reads back
// as such (Superblock.Amnesiac), and a restart from it is amnesiac still:
// recovering, its journal wiped, voting nothing until a StartView (the
// atlas-off finding whose replica, back from such a superblock as if whole,
// voted log_view 0 and nacked an op it had acked before the loss).
func TestAmnesiacSuperblockStaysAmnesiac(t *testing.T) {
	disk := map[[2]int][]byte{}
	read := func(z vsr.StorageZone, slot int) ([]byte, bool) {
		if b, ok := disk[[2]int{int(z), slot}]; ok {
			return b, false
		}
		size := vsr.PrepareRecordBytes
		if z == vsr.ZoneCheckpoint {
			size = vsr.CheckpointRecordBytes
		}
		return make([]byte, size), false
	}
	writeSuperblock := func(sb Superblock) {
		var shared recWords
		superblockWords(&shared, 3, &sb)
		for c := 0; c < vsr.SuperblockCopies; c++ {
			w := superblockCopy(shared, checksumFold(shared.w[:shared.n]), c)
			b := make([]byte, vsr.SuperblockRecordBytes)
			w.put(b)
			disk[[2]int{int(vsr.ZoneSuperblock), c}] = b
		}
	}
	h := sealed(1, 0, 1)
	h.Parent = genesisSnapshot().OpChecksum
	h.Seal()
	for _, z := range []vsr.StorageZone{vsr.ZonePrepares, vsr.ZoneHeaders} {
		b := make([]byte, vsr.PrepareRecordBytes)
		kind := recordPrepare
		if z == vsr.ZoneHeaders {
			kind = recordHeader
		}
		encodeEntry(b, kind, 1, &h)
		disk[[2]int{int(z), 1}] = b
	}
	restart := func(sb Superblock) *Replica {
		writeSuperblock(sb)
		got, _, ok, _ := readSuperblock(read)
		require.True(t, ok)
		require.Equal(t, sb.Amnesiac, got.Amnesiac, "the kind says whether it was written amnesiac")
		require.Equal(t, sb.Rejoined, got.Rejoined, "and whether since a view adopted after the loss")
		require.Equal(t, sb.Merged, got.Merged, "and whether merged")
		opts := DefaultOptions(1, 3)
		opts.Durability, opts.Storage = DurabilityWAL, true
		r, err := Restart(opts, zeroJitter{}, Durable{Read: read, journal: newJournal(opts)})
		require.NoError(t, err)
		return r
	}
	whole := Superblock{View: 20, Checkpoint: genesisSnapshot(), AckHead: 1, Head: 1, HeadSum: h.Checksum}
	r := restart(whole)
	assert.Equal(t, vsr.StatusViewChange, r.status, "a whole superblock: the journal rejoins (mid view change, its view above its log_view)")
	assert.True(t, r.log.journal.Has(1, h.Checksum))

	amnesiac := whole
	amnesiac.Amnesiac = true
	r = restart(amnesiac)
	assert.Equal(t, vsr.StatusRecovering, r.status, "written amnesiac: amnesiac still")
	assert.True(t, r.log.amnesiac)
	assert.False(t, r.log.journal.Has(1, h.Checksum), "no record of the disk can be placed: the journal is wiped")
	assert.Equal(t, uint64(20), r.view, "the views it learned since stand")
	assert.True(t, r.dur.sb.Amnesiac, "and its next superblock says so")
	assert.Equal(t, uint64(3), r.dur.store.seq, "numbered above the version read back, not from 1 again")

	// The record it read intact is kept unplaced: served, with no commit
	// point, to a peer that asks for it (a primary-elect awaiting that body,
	// swarm seed 3737880771 from 0xdecade00), and nothing else is.
	set, kept := r.log.unplaced.Get(1)
	require.True(t, kept, "the intact record is kept")
	_, aside := r.log.aside.Get(1)
	assert.False(t, aside, "apart from the set-aside bodies")
	assert.Equal(t, h.Checksum, set.Checksum)
	out := &vsr.Output{}
	r.Step(msg(vsr.RequestPrepares{From: 1, To: 4}, 0, 1, 20), out)
	served := repairServed(out)
	require.Len(t, served, 1)
	assert.Equal(t, h.Checksum, served[0].Checksum)
	for _, m := range out.Messages {
		if m.Command == vsr.CmdRepairPrepare {
			assert.Zero(t, m.RepairPrepare().Commit, "vouched for by nothing here")
		}
	}
	out = &vsr.Output{}
	r.Step(msg(vsr.RequestPrepares{From: 2, To: 4}, 0, 1, 20), out)
	assert.Empty(t, repairServed(out), "nothing set aside there: refused")
	require.NotEmpty(t, out.Events)
	assert.Contains(t, out.Events[len(out.Events)-1].String(), "cannot-serve")
	assert.Equal(t, vsr.StatusRecovering, r.status, "serving changes nothing of the amnesia")

	// Adopting a view ends it: no ack bound survived the loss, so the
	// adopted log is held unsure up to its head, never nacked; a replica
	// amnesiac with its ack bound known keeps that bound.
	adopt := func(r *Replica) {
		r.fx.Out = &vsr.Output{}
		r.endAmnesia(5)
		r.fx.Out = nil
	}
	adopt(r)
	_, kept = r.log.unplaced.Get(1)
	assert.False(t, kept, "a view adopted: the unplaced records are let go")
	assert.Equal(t, uint64(5), r.log.unsureTop, "the adopted log is held unsure up to its head")
	assert.False(t, r.dur.sb.Amnesiac, "the next superblock names a view adopted")
	assert.True(t, r.dur.sb.Rejoined, "and says the loss's unsure ops stand (D92)")
	bounded := restart(amnesiac)
	bounded.dur.sb.Amnesiac = false // as a replica whose superblock held
	bounded.log.unsureTop = 2
	adopt(bounded)
	assert.Equal(t, uint64(2), bounded.log.unsureTop, "a known ack bound stands")
	assert.False(t, bounded.dur.sb.Rejoined, "and needs no durable unsure bound")

	// A restart from a superblock written since (D92; swarm seed 3520014390
	// from 0xd1ce0000) holds every op to its head unsure again, merged or
	// not; one from a whole superblock holds none.
	for _, merged := range []bool{false, true} {
		rejoined := whole
		rejoined.Rejoined, rejoined.Merged = true, merged
		rejoined.LogView, rejoined.AckView = 19, 18
		r = restart(rejoined)
		assert.Equal(t, uint64(1), r.log.unsureTop, "held unsure to its head, merged %v", merged)
		assert.True(t, r.dur.sb.Rejoined, "until its commit point passes it, merged %v", merged)
	}
	assert.Zero(t, restart(whole).log.unsureTop, "a whole superblock: nothing held unsure")
}

// A replica that finds no superblock copy whole lost the count of its lives
// with it: it takes an incarnation from its boot clock, above every
// incarnation its earlier lives could have stamped (one restart a tick at
// most), so a primary never counts an earlier life's acks as this one's.
// Counting from 1 again stamped an incarnation an earlier life had stamped.
func TestAmnesiacIncarnationAboveEveryEarlierLife(t *testing.T) {
	bad := superblockLostRead
	opts := DefaultOptions(1, 3)
	opts.Durability, opts.Storage = DurabilityWAL, true
	var last uint64
	for _, boot := range []uint64{0, 1, 2, 900, 901, 70000} {
		r, err := Restart(opts, zeroJitter{}, Durable{Read: bad, journal: newJournal(opts), Boot: boot})
		require.NoError(t, err)
		require.True(t, r.log.amnesiac, "boot %d: no superblock, amnesiac", boot)
		inc := r.Info().Incarnation
		assert.Greater(t, inc, boot+(1<<incarnationBootShift)-1, "boot %d: above every count of restarts up to its boot", boot)
		assert.Greater(t, inc, last, "boot %d: above the loss at an earlier boot", boot)
		assert.Equal(t, inc, r.dur.sb.Incarnation, "its superblocks carry it")
		last = inc
	}
}

// A replica back from a lost superblock takes a view only from its primary:
// a backup relays its own log, which may stop below ops of that view the
// replica acked and cannot name (swarm seed 1592593278: adopted, a relayed
// view 0 with head 0 made its votes disown ops 1..7, and a view it led cut
// them). A replica whose superblock held still takes a relayed view.
func TestLostSuperblockTakesNoRelayedView(t *testing.T) {
	bad := superblockLostRead
	opts := DefaultOptions(1, 3)
	opts.Durability, opts.Storage = DurabilityWAL, true
	r, err := Restart(opts, zeroJitter{}, Durable{Read: bad, journal: newJournal(opts), Boot: 40})
	require.NoError(t, err)
	require.True(t, r.dur.sb.Amnesiac)
	require.True(t, r.peers.Relays(), "relays on: only the lost superblock refuses")
	sv := vsr.StartView{}
	relayed := &vsr.Envelope{Command: vsr.CmdStartView, From: 2, To: 1, View: 0}
	reason, _ := r.ignoreStartView(relayed, sv)
	assert.Equal(t, vsr.ReasonNotPrimary, reason, "a relayed view refused")
	primary := &vsr.Envelope{Command: vsr.CmdStartView, From: 0, To: 1, View: 0}
	reason, _ = r.ignoreStartView(primary, sv)
	assert.Equal(t, vsr.ReasonNone, reason, "the view's primary's log taken")
	r.dur.sb.Amnesiac = false // as a replica recovering a head its superblock names
	reason, _ = r.ignoreStartView(relayed, sv)
	assert.Equal(t, vsr.ReasonNone, reason, "a relayed view taken")
}

// superblockLostRead is a disk whose every superblock copy is unreadable and
// whose other zones were never written.
func superblockLostRead(z vsr.StorageZone, _ int) ([]byte, bool) {
	if z == vsr.ZoneSuperblock {
		return nil, true
	}
	size := vsr.PrepareRecordBytes
	if z == vsr.ZoneCheckpoint {
		size = vsr.CheckpointRecordBytes
	}
	return make([]byte, size), false
}

// TestEmptySlotUnderTheAckViewIsFaulty: an empty slot (a removal, or never
// written) where the durable ack view's ack head says an op was acked is
// faulty when the durable log_view is that ack view, or when the removal
// was written in the ack view or before (never written counts so): the
// acked op's writes were lost over it (D96; swarm seed 3199102820 from
// 0xbead0000: both writes of op 13 lost over an older removal, the restart
// back in its merged log_view 9 read the slot as empty, voted op 13 as a
// bodiless header, a nack, and the merge cut it although it had committed
// on that replica's ack). A removal written in a newer view is that view's
// own (swarm seed 3235855267 from 0xc0de0000: a merge's removal held unsure
// stalled the view change), and above the ack view's head nothing was
// acked: the slot stays empty.
func TestEmptySlotUnderTheAckViewIsFaulty(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sb        Superblock
		removedIn uint64
		faulty    bool
	}{
		{"log_view is the ack view", Superblock{LogView: 8, AckView: 8, AckViewHead: 13, AckHead: 13}, 8, true},
		{"merged log_view, removal older than the ack", Superblock{LogView: 9, AckView: 8, AckViewHead: 13, AckHead: 13, Merged: true}, 6, true},
		{"adopted log_view, removal older than the ack", Superblock{LogView: 9, AckView: 8, AckViewHead: 13, AckHead: 13}, 7, true},
		{"newer log_view, slot never written", Superblock{LogView: 9, AckView: 8, AckViewHead: 13, AckHead: 13}, 0, true},
		{"merged log_view, the merge's own removal", Superblock{LogView: 9, AckView: 8, AckViewHead: 13, AckHead: 13, Merged: true}, 9, false},
		{"adopted log_view, the adoption's own removal", Superblock{LogView: 9, AckView: 8, AckViewHead: 13, AckHead: 13}, 9, false},
		{"above the ack view's head", Superblock{LogView: 9, AckView: 8, AckViewHead: 12, AckHead: 12, Merged: true}, 6, false},
	} {
		got := reclassify(slotRead{class: slotEmpty, removedIn: tc.removedIn}, 13, 64, 0, &tc.sb)
		assert.Equal(t, tc.faulty, got.class == slotFaulty, tc.name)
	}
	// The view a removal was written in is read back from either copy.
	b := make([]byte, vsr.PrepareRecordBytes)
	encodeBlank(b, recordBlank, recordPrepare, 13, 7)
	s := classify(blankCopy(vsr.ZoneHeaders, 13), readRecord(b, false, vsr.ZonePrepares, 13, 64, false), false)
	assert.Equal(t, slotEmpty, s.class)
	assert.Equal(t, uint64(7), s.removedIn)
}
