package vsr

import "fmt"

// Reason says why a replica refused a message (EvDrop) or a state-transfer
// offer (EvOfferRefused). Its String is the word the trace prints: the trace
// hash covers it, so a rename moves every hash that shows the reason.
type Reason uint8

// Reasons. The numbering never leaves the process; only the words do.
const (
	ReasonNone Reason = iota

	// Gate and sender checks.
	ReasonUnknownCommand
	ReasonRecovering
	ReasonOldView
	ReasonNotPrimary
	ReasonNotPrimaryOfView
	ReasonNotPrimaryElect
	ReasonNotNormalBackup
	ReasonBadSender
	ReasonStaleIncarnation
	ReasonTransferring
	ReasonInView
	ReasonUnsolicited
	ReasonBelowCommit

	// Requests.
	ReasonBadClient
	ReasonOldRequest
	ReasonRequestQueueFull
	ReasonInFlight

	// Prepares and repair.
	ReasonBadChecksum
	ReasonOldOp
	ReasonGap
	ReasonParentMismatch
	ReasonCannotServe
	ReasonBadRange
	ReasonHeaderMismatch
	ReasonUnverified
	ReasonNoSlot
	ReasonHeld

	// View change.
	ReasonDVCUnreadable
	ReasonDVCGap
	ReasonStartViewUnreadable

	// State transfer: drops of transfer messages, then offer refusals.
	ReasonCannotOffer
	ReasonOfferNotNewer
	ReasonBadChunk
	ReasonOfferGone
	ReasonChunkCorrupt
	ReasonNotNewer
	ReasonStale
	ReasonBelowAcceptedHead
	ReasonBelowAck

	// Partial admissions (Takes): a message the gate does not hand to its
	// handler, one fact of which the replica takes all the same; the trace
	// names the fact, so a refusal never acts.
	ReasonCommitOnly      // a backup's relay of this replica's view: its commit point
	ReasonProbeNewerView  // a newer view's Prepare or Commit: ask that view's primary for it
	ReasonRelayView       // an older view's StartViewChange: hand its sender this view
	ReasonOldPrimaryAlive // an older view's primary heartbeating during a view change

	ReasonCount
)

var reasonNames = [ReasonCount]string{
	ReasonNone:                "",
	ReasonUnknownCommand:      "unknown-command",
	ReasonRecovering:          "recovering",
	ReasonOldView:             "old-view",
	ReasonNotPrimary:          "not-primary",
	ReasonNotPrimaryOfView:    "not-primary-of-view",
	ReasonNotPrimaryElect:     "not-primary-elect",
	ReasonNotNormalBackup:     "not-normal-backup",
	ReasonBadSender:           "bad-sender",
	ReasonStaleIncarnation:    "stale-incarnation",
	ReasonTransferring:        "transferring",
	ReasonInView:              "in-view",
	ReasonBelowCommit:         "below-commit",
	ReasonUnsolicited:         "unsolicited",
	ReasonBadClient:           "bad-client",
	ReasonOldRequest:          "old-request",
	ReasonRequestQueueFull:    "request-queue-full",
	ReasonInFlight:            "in-flight",
	ReasonBadChecksum:         "bad-checksum",
	ReasonOldOp:               "old-op",
	ReasonGap:                 "gap",
	ReasonParentMismatch:      "parent-mismatch",
	ReasonCannotServe:         "cannot-serve",
	ReasonBadRange:            "bad-range",
	ReasonHeaderMismatch:      "header-mismatch",
	ReasonUnverified:          "unverified",
	ReasonNoSlot:              "no-slot",
	ReasonHeld:                "held",
	ReasonDVCUnreadable:       "dvc-unreadable",
	ReasonDVCGap:              "dvc-gap",
	ReasonStartViewUnreadable: "start-view-unreadable",
	ReasonCannotOffer:         "cannot-offer",
	ReasonOfferNotNewer:       "offer-not-newer",
	ReasonBadChunk:            "bad-chunk",
	ReasonOfferGone:           "offer-gone",
	ReasonChunkCorrupt:        "chunk-corrupt",
	ReasonNotNewer:            "not-newer",
	ReasonStale:               "stale",
	ReasonBelowAcceptedHead:   "below-accepted-head",
	ReasonBelowAck:            "below-ack",
	ReasonCommitOnly:          "commit-only",
	ReasonProbeNewerView:      "probe-newer-view",
	ReasonRelayView:           "relay-view",
	ReasonOldPrimaryAlive:     "old-primary-alive",
}

// Takes reports whether r admits one fact of the message it names (a partial
// admission) rather than refusing it whole.
func (r Reason) Takes() bool { return r >= ReasonCommitOnly && r < ReasonCount }

func (r Reason) String() string {
	if r < ReasonCount {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}
