package spec

import "fmt"

// promise_durable: a replica on a disk makes a promise (a vote, a view it
// starts, an ack) only once the superblock that keeps it across a crash was
// asked for, fenced, in this life: the harness holds a message until every
// fenced write asked before it has landed, so the promise leaves durable. A
// restart reads its view, its log_view and its acks back from that
// superblock; one that never named them comes back having forgotten what it
// promised (an ack it may nack, a view it may serve below). The rule reads
// what the replica asked its disk to write, decoded from outside, never the
// replica's state.

// Durable is what a superblock copy makes durable, as far as the rule reads
// it.
type Durable struct {
	View, LogView                 uint64
	AckHead, AckView, AckViewHead uint64
	// CommitMax is the commit point a restart comes back at or above
	// (displace_after_superblock).
	CommitMax uint64
}

// checkPromiseDurable judges msg, sent by replica i in its step, against the
// last fenced superblock asked for in this life (this step's included: the
// step's writes are handed over before its messages).
func (m *Model) checkPromiseDurable(i int, r *replicaState, msg *Message) {
	d := &r.durable
	var short string
	switch msg.Command {
	case CmdPrepareOk:
		short = d.ack(msg.View, msg.Op)
	case CmdStartViewChange:
		if !msg.Leave {
			short = d.view(msg.View, 0)
		}
	case CmdDoViewChange:
		short = d.view(msg.View, msg.LogView)
	case CmdStartView:
		short = d.view(msg.View, msg.View)
	default:
		return
	}
	switch {
	case short == "":
	case !r.durableAsked:
		m.fail(i, RulePromiseDurable, "sends %s with no fenced superblock asked for in this life", msg.String())
	default:
		m.fail(i, RulePromiseDurable, "sends %s while the last fenced superblock it asked for in this life %s", msg.String(), short)
	}
}

// view says what d lacks to keep view v and log_view l ("": nothing).
func (d *Durable) view(v, l uint64) string {
	if d.View < v || d.LogView < l {
		return fmt.Sprintf("names view %d log_view %d", d.View, d.LogView)
	}
	return ""
}

// ack says what d lacks to keep an ack of op in view v: the view, the ack
// head, and the ack view's head where v is the ack view.
func (d *Durable) ack(v, op uint64) string {
	if s := d.view(v, 0); s != "" {
		return s
	}
	if d.AckHead < op || d.AckView < v || (d.AckView == v && d.AckViewHead < op) {
		return fmt.Sprintf("names ack head %d, ack view %d and its head %d", d.AckHead, d.AckView, d.AckViewHead)
	}
	return ""
}
