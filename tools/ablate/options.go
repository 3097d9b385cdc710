package main

import (
	"slices"
	"strings"
)

// option is a source option of the `protocol` line and the rule of the
// source it brings back, as the report explains it.
type option struct {
	name string
	rule string
}

// options are in the order the simulator writes them (sim/settings), which
// the report's columns and sets keep. Each rule says what the option brings
// back and how that stalls a run, from docs/protocol.md and the decision
// records it cites; the summary's counts are the data behind it.
var options = []option{
	{"svc-quorum-off", "Brings back the source's view change without the StartViewChange quorum window " +
		"([D14](decisions/0014-a-replicas-own-timeout-is-one-vote-not-a-move.md)): a replica whose own timeout fires " +
		"(a backup that stops hearing its primary, a view change that did not complete in its status period) " +
		"moves to the next view by itself, and any StartViewChange of a higher view pulls every replica that " +
		"hears it. A replica behind a slow, lossy or one-way link, often the one outside the core, then times " +
		"out round after round, a view ahead each time, and drags the core out of the view change it was about " +
		"to finish: the core's view climbs every status period while its log_view stays where it was. Without " +
		"the option a replica's own timeout is one vote: it leaves a view only when a view-change quorum asked " +
		"to leave that view within 500 ticks, so the straggler neither climbs alone nor deposes the core, which " +
		"completes a view change and serves."},
	{"abdication-off", "Brings back a primary that never steps down " +
		"([D15](decisions/0015-being-heard-needs-traffic-backups-answer-heartbeats.md), " +
		"[D40](decisions/0040-abdicate-on-stalled-replication-not-on-silence.md)): no abdication window, no " +
		"CommitOk answers to its heartbeats, and so no StartView pushed to a backup it has not heard from " +
		"(the push rides on that window, " +
		"[D28](decisions/0028-a-primary-pushes-its-startview-to-a-backup-it-does-not-hear.md)). Its heartbeats keep " +
		"every backup's timeout from running out, so a primary that cannot hear a replication quorum, or whose " +
		"replication stalls while it still hears its backups (a backup drops every retransmit of an op by the " +
		"gap check, the commit point stops), holds the core in a view that commits nothing for good; and a core " +
		"replica that missed its view's StartView is never handed it and can only time out, which under " +
		"`svc-quorum-off` moves views. Without the option a primary whose oldest prepare stayed pending for " +
		"three windows with no new ack abdicates, the backups time out and elect a view whose merge gives every " +
		"member one log, and a backup the primary cannot hear is pushed the view."},
	{"backoff-off", "Brings back fixed retry periods " +
		"([D13](decisions/0013-robust-mechanisms-by-default-the-failure-shapes-name.md), " +
		"[D97](decisions/0097-the-status-timeout-outwaits-the-slowest-link.md)): the view-change status timeout, " +
		"and repair and state-transfer retries, fire every base period however often they fired in a row. The " +
		"files that need it have links slower than the 500-tick status timeout, and the view change the core " +
		"needs waits on a message over one of them (a vote, a nack, a StartView from a replica far away): each " +
		"round escalates before that message lands, the next round waits for it again, and views climb through " +
		"the whole liveness phase with log_view fixed. Without the option the status timeout doubles with each " +
		"view change entered in a row, up to 16x (8,000 ticks), longer than the slowest link the swarm draws, " +
		"so a later round outwaits the link and completes."},
	{"push-start-view-off", "Brings back a primary that sends its StartView only when asked " +
		"([D28](decisions/0028-a-primary-pushes-its-startview-to-a-backup-it-does-not-hear.md)): a backup that " +
		"hears the primary but cannot reach it never gets the view it missed, since its requests for it are " +
		"lost. Without the option the primary pushes its StartView, once a window, to every backup it has " +
		"not heard from."},
	{"source-transfer", "Brings back the source's state transfer " +
		"([D7](decisions/0007-the-stale-guard-protects-what-an-install-would-lose.md), " +
		"[D114](decisions/0114-a-peer-sends-every-chunk-of-an-offer-at-once.md)): the install replaces the whole " +
		"journal, ops above the checkpoint included, with only the stale guard to refuse an offer below an op " +
		"the replica may have acked, and the pull takes one chunk per request, in order, so a transfer spans " +
		"several round trips while the cluster writes and changes views. Its one file is a safety finding: a " +
		"replica that became primary while its pull was under way acks and commits ops above the offer, then " +
		"the install lands and truncates them, a committed op lost. Without the option the install keeps the " +
		"journaled ops above the checkpoint, so it can lose nothing that was acked, and the chunks come at once."},
	{"abdicate-by-hearing", "Brings back the source's abdication by hearing alone " +
		"([D15](decisions/0015-being-heard-needs-traffic-backups-answer-heartbeats.md)), which " +
		"[D40](decisions/0040-abdicate-on-stalled-replication-not-on-silence.md) replaced: a primary abdicates only " +
		"when fewer than a replication quorum reached it in a window, whatever it has pending, and resumes on " +
		"hearing one; it has no stall rule, and backups go on trusting bare heartbeats after forwarding a " +
		"request. A primary that hears its backups answer its heartbeats but commits nothing (its prepares or " +
		"their acks lost, or a backup dropping them by the gap check) therefore never abdicates, and the core " +
		"sits Normal in one view and serves nobody. Without the option the primary abdicates after three windows " +
		"in which its oldest prepare stayed pending with no new ack, and the view change that follows hands the " +
		"backups a log they can ack."},
	{"backup-replies-off", "Brings back replies from the primary alone, as in VRR " +
		"([D43](decisions/0043-backups-reply-relay-the-view-and-recover-promptly.md)): backups forward every " +
		"request, one they applied included, so a primary that cannot reach its clients serves nobody. Without " +
		"the option one backup per op replies too, and any Normal backup answers a retry from its client table."},
	{"relay-start-view-off", "Brings back a cluster in which only a view's primary hands out the view " +
		"([D43](decisions/0043-backups-reply-relay-the-view-and-recover-promptly.md), " +
		"[D48](decisions/0048-a-merge-fetches-a-body-no-voter-holds-a-lagging-backup-relays-no-view.md)): a backup " +
		"that follows its view well does not answer a peer's request to leave it, an older view's " +
		"StartViewChange or a recovering replica's probe with the view's StartView. A core replica that cannot " +
		"hear the primary (one outside the core, or behind a one-way or slow link) or that restarted without its " +
		"journal and probes for a view then waits on the one replica that cannot reach it: its wish to leave is " +
		"one vote, a recovering replica cannot vote at all, and the core is left without a quorum of voters or " +
		"churns views trying to form one. Without the option any backup of the core that follows the view hands " +
		"it over, commit point included, and the core converges with no harness cut-off."},
	{"backoff-reset-off", "Brings back retries that stay backed off until they make progress " +
		"([D43](decisions/0043-backups-reply-relay-the-view-and-recover-promptly.md)): a repair, transfer or " +
		"view-change retransmit timer that doubled while its replica was cut off keeps its long period after " +
		"the links heal; repair, evicted-range and offer requests go round the peers in a fixed order, a silent " +
		"primary included; a primary whose prepare retransmits backed off waits out the period even after the " +
		"backup answers a heartbeat. In the liveness phase a replica the fault phase cut off asks for what it " +
		"lacks (a body, a vote's retransmit) once per long period, often of a peer that cannot answer, and the " +
		"round that needs it (a view change under the source's timeouts, a commit waiting on its ack) times out " +
		"first, round after round. Without the option hearing a replication quorum again starts those retries " +
		"afresh at their base period and they pass over a silent primary, so what the core lacks arrives within " +
		"a round."},
	{"prepare-repair-off", "Brings back the source's gap check for an op a backup holds hollow " +
		"([D83](decisions/0083-a-prepare-of-an-op-held-hollow-is-taken-as-its-repair.md)): a backup that holds an " +
		"op's header without its body (adopted from a StartView over a hole, or held unsure after a restart) " +
		"drops the primary's Prepare of it, since it is not the op after its head, and leaves the hole to " +
		"repair, which asks one peer at a time and may keep asking one that lost its copy or cannot be reached. " +
		"The backup acks nothing from that op on, the commit point stops under it, and each view change the " +
		"stall brings meets the same hole. Without the option a Prepare that the adopted header, the commit " +
		"anchor or the op above vouches for is taken as the repair: journaled, acked, and the commit point moves."},
}

func ruleOf(name string) string {
	for _, o := range options {
		if o.name == name {
			return o.rule
		}
	}
	return ""
}

// canonical sorts options in the order of the option table, the order the
// simulator writes them; unknown ones follow by name.
func canonical(opts []string) []string {
	s := slices.Clone(opts)
	slices.SortStableFunc(s, func(a, b string) int {
		ia, ib := optionIndex(a), optionIndex(b)
		if ia != ib {
			return ia - ib
		}
		return strings.Compare(a, b)
	})
	return s
}

func optionIndex(name string) int {
	for i, o := range options {
		if o.name == name {
			return i
		}
	}
	return len(options)
}
