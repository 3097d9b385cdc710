package spec

// Rule names: a contract with the verdict ("spec/<name>"), docs/spec.md and
// the tests that break each on purpose.
const (
	RuleViewMonotonic           = "view_monotonic"
	RuleLogViewAtMostView       = "log_view_at_most_view"
	RuleNormalLogView           = "normal_log_view"
	RuleEnterNormal             = "enter_normal"
	RuleRestartPrimary          = "restart_primary_leaves"
	RuleViewChangeCause         = "view_change_cause"
	RuleLeaveQuorum             = "leave_quorum"
	RuleStartViewChange         = "start_view_change_sender"
	RuleDoViewChange            = "do_view_change_sender"
	RuleStartView               = "start_view_sender"
	RulePrepare                 = "prepare_sender"
	RulePrepareOk               = "prepare_ok_sender"
	RuleCommit                  = "commit_sender"
	RuleSuffixReadable          = "suffix_readable"
	RuleVoteKeepsAcks           = "vote_keeps_acks"
	RuleVoteKeepsOlderAcks      = "vote_keeps_older_acks"
	RuleEscalateHolds           = "escalate_holds"
	RuleCommitOk                = "commit_ok_sender"
	RuleCommittedKept           = "committed_kept"
	RuleTruncateKeepsApplied    = "truncate_keeps_applied"
	RuleJournalWriteOrder       = "journal_write_order"
	RuleBlankKeepsAcks          = "blank_keeps_acks"
	RuleAckWritten              = "ack_written"
	RuleAsideReleaseLanded      = "aside_release_landed"
	RuleAckWithinRing           = "ack_within_ring"
	RuleRestoreChains           = "restore_chains"
	RuleBlankAfterSuperblock    = "blank_after_superblock"
	RuleDisplaceAfterSuperblock = "displace_after_superblock"
	RulePromiseDurable          = "promise_durable"
	RuleOneLogPerView           = "one_log_per_view"
	RuleAmnesiaHolds            = "amnesia_holds"
	RuleCommitWalk              = "commit_walk"
	RuleRestoreInLog            = "restore_in_log"
	RuleRepairServesLog         = "repair_serves_log"
	RuleVouchApplied            = "vouch_applied"
)

// ruleTexts states each rule as docs/spec.md does: the evidence of a finding
// carries it, so a reader needs no other page to see what broke.
var ruleTexts = map[string]string{
	RuleViewMonotonic:           "a replica's view never decreases within a life, nor below the last view it reported across a restart without a disk",
	RuleLogViewAtMostView:       "log_view <= view",
	RuleNormalLogView:           "a replica in Normal status in view v has log_view == v",
	RuleEnterNormal:             "a replica enters Normal in view v only as v's primary holding DoViewChange votes for v from a view-change quorum (its own included), or on a StartView for v delivered to it in that step",
	RuleRestartPrimary:          "a restarted replica does not resume Normal as the primary of its view: it cannot know what its lost pipeline gathered",
	RuleViewChangeCause:         "a replica moves into a view change of a higher view only on its own timeout, on a StartViewChange, DoViewChange or RequestStartView delivered to it, or at a restart",
	RuleLeaveQuorum:             "with the StartViewChange window, a replica leaves view v on its own (not pulled into the new view by a message of that view) only when a view-change quorum asked to leave v or a later view, itself included",
	RuleStartViewChange:         "a StartViewChange for v is sent only by a replica in view-change status in v; a request to leave v only by a replica not recovering whose view is at most v",
	RuleDoViewChange:            "a DoViewChange for v goes to v's primary from another replica: one in view-change status in v with log_view < v that heard StartViewChange for v from a view-change quorum less one, or one Normal in v re-sending its vote (log_view v) to a StartViewChange for v",
	RuleStartView:               "a StartView for v is sent by a replica Normal in v, stating log_view v and a commit point no higher than its head; by v's primary, or by a backup relaying the view when relays are on",
	RulePrepare:                 "a Prepare in view v is sent by a replica Normal in v holding that op with that checksum: the primary, or a backup forwarding along the chain",
	RulePrepareOk:               "a PrepareOk in view v for (op, checksum) is sent to v's primary by a backup Normal in v holding that op with that checksum",
	RuleCommit:                  "a Commit (heartbeat) in view v is sent only by v's primary, Normal in v",
	RuleSuffixReadable:          "a DoViewChange or StartView is readable: its suffix starts at the head it announces and walks down one op at a time along the parent chain (an empty one announces a head at or below its commit point)",
	RuleEscalateHolds:           "a replica whose view-change status timeout fires while an older view's primary heartbeat it in this view change, and which heard StartViewChange for its view from fewer than a view-change quorum less one, holds its view instead of escalating",
	RuleCommitOk:                "a CommitOk in view v (a heartbeat's answer, or a backup telling its commit point) is sent to v's primary by a backup Normal in v",
	RuleCommittedKept:           "a Prepare or a StartView of view v states, at every op some replica applied in view v or before, the checksum it applied: an applied op is committed, and every later view's log holds it",
	RuleTruncateKeepsApplied:    "a replica truncates from its journal no entry (op, checksum) some replica applied in the log_view it held as the step began or an earlier view, in a step that installs no checkpoint: that log holds the op, as every later one does, and a body the log cannot vouch for yet is set aside, never thrown away",
	RuleJournalWriteOrder:       "a replica on a disk asks for a journal slot's two copies together, in one step, both fenced: the header copy (fenced: a promise waits for it) only after the prepare copy of the same record, and a fenced prepare copy never without its header copy after it (a scrubber's mend of one copy alone is unfenced): the disk lands them in that order, and a restart may take a prepare that verifies for the slot's content",
	RuleBlankKeepsAcks:          "a replica on a disk does not write a blank over the slot of an op it acked in this life in the log_view it still holds, above every op it applied, checkpointed or installed, unless a journal event let that op go: read back, a blank says the op was never held",
	RuleAckWithinRing:           "a backup acks no Prepare it was just handed more than a ring of journal slots above the highest op it applied, checkpointed or installed: the op's slot is the slot of one it has yet to apply, which the op pushed off its ring or keeps out (TigerBeetle's on_prepare refuses it as too far ahead)",
	RuleAsideReleaseLanded:      "a replica on a disk lets go of its set-aside copy of (op, checksum), journaled again, only once the last fenced prepare copy it asked for at the op's slot in this life carries that entry and has landed, or, with none asked since, its restart took the entry up there: until then the set-aside copy is the only durable one",
	RuleAckWritten:              "a PrepareOk for (op, checksum) from a replica on a disk names the entry of the last fenced prepare copy it asked for at the op's slot in this life, or, with none asked since, the entry its restart took up there: the harness holds the ack until that write lands, so it must be the entry acked",
	RuleRestoreChains:           "a restart from a disk takes up a journal that chains: of two consecutive ops it takes up above every op it ever applied, checkpointed or installed, the upper names the lower's checksum as its parent",
	RuleBlankAfterSuperblock:    "a replica on a disk writes a blank over the slot of an op it acked in this life in an older log_view than the one it holds, above every op it applied, checkpointed or installed, only after a superblock asked in the same step, and held until that superblock lands: until then its durable log_view is the op's, and a restart in it must not read the op as never held",
	RuleDisplaceAfterSuperblock: "a replica on a disk that writes an op over the slot of an older op it acked in its ack view, above the commit point of the last superblock of this life the harness reported landed (before any, the one the superblock its restart came back at names; none whole: not judged), while the superblocks it asked for carry a commit point over the older op, asks for the entry after a superblock of the same step and holds it until that superblock lands: landing first, a crash leaves the acked op neither in its slot (a restart reads the live ring only) nor under the durable commit point, and the restart's vote nacks it",
	RulePromiseDurable:          "a replica on a disk sends a StartViewChange (not a request to leave) or a DoViewChange for view v, a StartView of v or a PrepareOk in v only once a superblock it asked for, fenced, in this life names view v or later, the message's log_view or later, and, for a PrepareOk of op o, an ack head of o or more and an ack view of v or later (of v: its head o or more): the harness holds the message until that write lands, and a restart reads these promises back from it",
	RuleOneLogPerView:           "a view has one log: a Prepare of view v, a StartView or a DoViewChange of log_view v names, at every op where it carries a header (a nack aside), the entry that view's Prepares and StartViews stated there first, and at an op some replica applied in view v or before, the checksum applied; a DoViewChange of log_view v from a replica other than v's primary announces no head above both its commit point and the highest op v's messages stated",
	RuleAmnesiaHolds:            "a replica whose restart read back every superblock copy damaged (in that life, or an earlier one with no Normal status since) reports no status but Recovering until it enters Normal on a StartView of that view delivered to it: it remembers no view, log_view or ack, and votes nothing",
	RuleVoteKeepsAcks:           "a DoViewChange with log_view L keeps every op above its commit point that its sender acked in view L: its head reaches the op, and its entry there is the acked header with the body, or unsure, or says nothing; never a nack, another header, or the header without the body",
	RuleVoteKeepsOlderAcks:      "a DoViewChange with log_view L keeps every op above its commit point and at or below its head where its sender acked, in a view before L, the very entry L's Prepares or StartViews on the wire stated there, and let it go since by no journal event (truncated, pruned, set aside, evicted) and by entering no newer log whose head lay below it: never a nack, another header, or the header without the body",
	RuleCommitWalk:              "a replica that learns a commit point (a state-transfer install's, which it reports; a Commit of its view from that view's primary while Normal in it; a StartView it adopts) applies, by the end of that step and of every later step while Normal in that view, each op above the last it applied in this life up to that point that it holds in its journal with the checksum some replica applied there, in order: nothing else may come to walk them (a backup cut off from its primary learns no commit point it does not know already)",
	RuleRestoreInLog:            "a restart from a disk that comes back at log_view L takes up, above every op it ever applied, checkpointed or installed, only entries of L's log: at an op where L's Prepares or StartViews on the wire stated an entry, the entry they stated",
	RuleVouchApplied:            "a commit point a replica states for what it holds itself (a repaired body's, with which it vouches for the body; a CommitOk's, with its checksum) is its own: at most the highest op it applied, checkpointed or installed, and a CommitOk's checksum the one applied at that op; a commit point it only knows of (commit_max) vouches for no copy it holds",
	RuleRepairServesLog:         "a replica Normal in view v that serves a repaired body with a commit point serves its log's: at or below that point the checksum some replica applied at the op, above it the entry view v's messages on the wire stated there, where they stated one; a body served with no commit point vouches for nothing",
}

// RuleText returns the rule's text ("" for an unknown name).
func RuleText(rule string) string { return ruleTexts[rule] }

// Rules lists every rule name, in the order docs/spec.md gives them.
func Rules() []string {
	return []string{RuleViewMonotonic, RuleLogViewAtMostView, RuleNormalLogView, RuleEnterNormal,
		RuleRestartPrimary, RuleViewChangeCause, RuleLeaveQuorum, RuleStartViewChange,
		RuleDoViewChange, RuleStartView, RulePrepare, RulePrepareOk, RuleCommit,
		RuleSuffixReadable, RuleVoteKeepsAcks, RuleVoteKeepsOlderAcks, RuleEscalateHolds, RuleCommitOk, RuleCommittedKept, RuleTruncateKeepsApplied,
		RuleJournalWriteOrder, RuleBlankKeepsAcks, RuleBlankAfterSuperblock, RuleDisplaceAfterSuperblock, RuleAckWritten, RuleAckWithinRing, RuleAsideReleaseLanded, RuleRestoreChains, RulePromiseDurable,
		RuleOneLogPerView, RuleAmnesiaHolds, RuleCommitWalk, RuleRestoreInLog, RuleRepairServesLog, RuleVouchApplied}
}

// quorumReplication and quorumViewChange are the model's own quorum
// arithmetic, written from docs/protocol.md "Quorums", not imported: a slip
// in the replica's cannot slip into the rule that judges it.
func quorumReplication(n int) int {
	if n == 2 {
		return 2
	}
	return min((n+1)/2, 3)
}

func quorumViewChange(n int) int {
	if n == 2 {
		return 2
	}
	return n + 1 - quorumReplication(n)
}
