package sim

import (
	"fmt"

	"vsrsim/outcome"
	"vsrsim/sim/check"
)

// The storage verdict: a safety finding becomes unrecoverable only where the
// disks' record covers what it is about (check.ExcuseFailure): an op it
// names whose copies disks lost on a replication quorum, or replicas it
// names whose every superblock copy is faulty, standing at the finding.
// Damage elsewhere, repaired damage, or damage that cannot lose a copy (a
// header copy beside an intact prepare, a slot never written) excuses
// nothing.

// judgeStorage turns a safety finding into unrecoverable under the storage
// excuse that covers it, keeping the finding in the evidence. A crash is the
// replica's own assertion: no disk excuses it. Liveness is judged at the
// stall (check.Checker.Stalled).
func (c *Cluster) judgeStorage(res *Result) {
	if c.disks == nil || res.Verdict != VerdictSafety || c.failure == nil {
		return
	}
	ex, ok := c.checker.ExcuseFailure(c.failure)
	if !ok || !c.proveStorage(ex) {
		return
	}
	c.excuse(res, ex)
	res.Evidence = fmt.Sprintf("%s, before the finding: %s %s", ex.Proof, res.Invariant, res.Evidence)
	res.Verdict = Verdict(outcome.Rewritten(string(res.Verdict), outcome.Unrecoverable))
	res.Invariant = "unrecoverable"
}

// proveStorage completes a storage excuse's proof with the disk faults that
// prove it, and reports whether the atlas allows them to go that far. One it
// does not is the disk model breaking its own promise (a defect of the
// harness, as tools/mutants' crash-tears-last-superblock plants): no excuse,
// the finding stands.
func (c *Cluster) proveStorage(ex *check.Excuse) bool {
	if c.disks == nil || ex.Rule != check.RuleStorageBeyondF {
		return true
	}
	var proof string
	var past bool
	if ex.Superblock {
		proof, past = c.superblockProof(ex.Replicas)
	} else {
		for _, op := range ex.Ops {
			p, ok := c.faultProof(op, ex.Replicas)
			proof, past = proof+p, past || ok
		}
	}
	ex.Proof += proof
	return past
}

// excuse records ex as the run's excuse.
func (c *Cluster) excuse(res *Result, ex *check.Excuse) {
	res.Rule = ex.Rule
	res.Excuse = &Excuse{Rule: ex.Rule, Ops: append([]uint64{}, ex.Ops...), Replicas: append([]int{}, ex.Replicas...), Proof: ex.Proof, Since: ex.Since}
}

// Excuse is what an unrecoverable verdict excuses and why (Result.Excuse):
// the rule, the ops and replicas its proof covers, the proof from the
// harness's own record, and the tick since which it held.
type Excuse struct {
	Rule     string   `json:"rule"`
	Ops      []uint64 `json:"ops"`
	Replicas []int    `json:"replicas"`
	Proof    string   `json:"proof"`
	Since    uint64   `json:"since"`
}

// stallGrace is how long after the commit point last advanced a stall's
// excuse may arise and still be its cause (check.Checker.Stalled).
func (c *Cluster) stallGrace() uint64 { return 0 }
