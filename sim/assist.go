package sim

// Assist is one intervention of the harness that changed what a run had to
// survive: a replica cut off in the liveness phase so the core could converge.
// A run never gets help silently: each assist is in its result (JSON
// `assists`), a note line of its trace, and the sweep's `assisted` count.
type Assist struct {
	Tick    uint64 `json:"tick"`
	Replica int    `json:"replica"`
	Rule    string `json:"rule"`
	Cause   string `json:"cause"`
}

// Assist rules: a contract with the JSON output and docs/checkers.md.
const (
	// AssistLeaderCutOff: a replica outside the core still led a view two
	// StableTicks into the liveness phase while a link from it to the core
	// stayed slower than the heartbeat timeout, or cut for good (D21, D28).
	AssistLeaderCutOff = "leader-cut-off"
	// AssistSourceStraggler: in a swarm run of a source protocol (no
	// StartViewChange quorum window) whose core had not settled two
	// StableTicks into the liveness phase, a replica outside the core that
	// hears the core later than the heartbeat timeout, or not at all (D27).
	AssistSourceStraggler = "source-straggler-cut-off"
	// AssistRecordedCutOff: a recorded run replays a straggler cut-off its
	// recording made (liveness isolate).
	AssistRecordedCutOff = "recorded-cut-off"
)

func (c *Cluster) assist(i int, rule, cause string) {
	c.assists = append(c.assists, Assist{Tick: c.now, Replica: i, Rule: rule, Cause: cause})
}
