package vsr

// KeySpace is the number of keys of the state machine. It is small on purpose:
// clients collide on keys, which is what makes linearizability checks bite.
const KeySpace = 16

// ClientsMax bounds the client table.
const ClientsMax = 64

// ClientEntry is one row of the client table: the last request a client made and
// the reply it got, so a retried request is answered without re-executing it.
type ClientEntry struct {
	Request uint64
	Op      uint64
	Result  uint64
}

// StateMachine is the deterministic key-value store behind the log. Its state is
// plain arrays: no map, so its checksum and snapshots never depend on map order.
type StateMachine struct {
	KV      [KeySpace]uint64
	Clients [ClientsMax]ClientEntry
}

// Apply executes one operation and returns its result: the previous value for a
// put, the current value for a get, the new value for an increment.
func (s *StateMachine) Apply(op Operation) uint64 {
	k := op.Key % KeySpace
	switch op.Kind {
	case OpPut:
		prev := s.KV[k]
		s.KV[k] = op.Value
		return prev
	case OpGet:
		return s.KV[k]
	case OpIncr:
		s.KV[k] += op.Value
		return s.KV[k]
	}
	return 0
}

// Checksum hashes the whole state, client table included.
func (s *StateMachine) Checksum() uint64 {
	x := uint64(0xbb67ae8584caa73b)
	for _, v := range s.KV {
		x = ChecksumMix(x ^ v)
	}
	for _, c := range s.Clients {
		x = ChecksumMix(x ^ c.Request ^ c.Op<<1 ^ c.Result<<2)
	}
	return x
}

// Snapshot is a checkpoint of the state machine at an op. It is immutable once
// built; a receiver copies its arrays into its own state on install.
type Snapshot struct {
	Op            uint64
	OpChecksum    uint64 // checksum of the prepare at Op: the parent of Op+1
	StateChecksum uint64
	State         StateMachine
}

// SnapshotChunks is how many chunks a state transfer pulls, one in flight.
const SnapshotChunks = 4
