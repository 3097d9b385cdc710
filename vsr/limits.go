package vsr

// Limits of the model: the bounds the messages, the journal and the cluster
// are sized by, which the harness and the replica read alike.
const (
	PipelineMax     = 32
	RequestQueueMax = 64  // the default and largest Options.RequestQueue
	SuffixMax       = 128 // DoViewChange / StartView headers
	RepairBatchMax  = 128 // most RepairPrepares a server sends for one request
	// RepairWindowMax is the most ops a requester asks for at once: a burst of
	// 128 prepares on one link overflows its capacity and evicts most of them.
	RepairWindowMax = 32
	ReplicasMax     = 9
	JournalSlotsMin = 16
	JournalSlotsMax = 1 << 16
)
