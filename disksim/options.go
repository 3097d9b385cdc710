package disksim

import (
	"errors"
	"fmt"

	"vsrsim/prng"
)

// Defaults for the zero values of Options.
const (
	PendingMaxDefault = 256
	RecordMaxDefault  = 1 << 20
	// ticksMax bounds the latency options so that a due tick cannot overflow.
	ticksMax = 1 << 32
	// armedMax bounds the scripted faults waiting for their write.
	armedMax = 16
)

var errNilStream = errors.New("disksim: the PRNG stream is nil")

// Options configure a Disk. Ratios are integer probabilities; a zero ratio
// is "never" and draws nothing.
type Options struct {
	// Geometry is the disk's layout; it must equal the atlas's.
	Geometry Geometry
	// Replica is the id of the replica the disk belongs to, as the atlas
	// and the fault record name it.
	Replica int
	// Atlas says where this disk may be faulty. Nil means no atlas: every
	// fault may land anywhere, as with an atlas that is off.
	Atlas *Atlas

	// WriteLatencyMinTicks is the least latency of every write;
	// WriteLatencyMeanTicks the mean of an exponential extra on top. With
	// both zero a write falls due at the tick it was submitted.
	WriteLatencyMinTicks  uint64
	WriteLatencyMeanTicks uint64
	// PendingMax bounds the writes in flight; one more is a caller bug.
	PendingMax int
	// RecordMax bounds the fault record; one more fault is a crash of the run.
	RecordMax int

	// ReadLatent, per read of a slot, makes a drawn sector of it a latent
	// error: from then on it reads damaged, until a write rewrites it.
	ReadLatent prng.Ratio
	// RotMeanTicks, non-zero, makes the media decay with time: each write
	// that lands whole where the atlas allows a fault draws, as it lands, a
	// sector and a delay (Exponential(RotMeanTicks)); that sector reads
	// damaged from then on, unless a write reaches the slot first. Drawn at
	// landing, so how often the slot is read (a scrubber) does not change
	// when it decays, only whether the damage is found before it is needed.
	RotMeanTicks uint64
	// WriteDamaged, per completed write, damages a drawn sector of what it
	// wrote; the write still reports success.
	WriteDamaged prng.Ratio
	// WriteMisdirected, per completed write, lands the whole write on another
	// slot of the same zone, drawn; the intended slot keeps its old bytes.
	WriteMisdirected prng.Ratio
	// WriteLost, per completed write, drops the write although it reports
	// success; the slot keeps its old bytes.
	WriteLost prng.Ratio
	// CrashTorn, per write pending at a crash, tears it: a drawn number of
	// its first sectors hold the new bytes, the next one is damaged, the
	// rest keep their old bytes.
	CrashTorn prng.Ratio
	// CrashWritten, per write pending at a crash and not torn, lets it reach
	// the media whole although it never completed. Not a fault: the caller
	// simply never heard of it. Otherwise a pending write is lost at a crash
	// (never acknowledged, so not a fault either).
	CrashWritten prng.Ratio
}

func (o Options) withDefaults() Options {
	o.Geometry = o.Geometry.withDefaults()
	if o.PendingMax == 0 {
		o.PendingMax = PendingMaxDefault
	}
	if o.RecordMax == 0 {
		o.RecordMax = RecordMaxDefault
	}
	return o
}

func (o Options) validate() error {
	if err := o.Geometry.validate(); err != nil {
		return err
	}
	if o.Replica < 0 || o.Replica >= ReplicasMax {
		return fmt.Errorf("disksim: replica %d, outside [0, %d)", o.Replica, ReplicasMax)
	}
	if a := o.Atlas; a != nil {
		if a.opts.Geometry != o.Geometry {
			return fmt.Errorf("disksim: the disk's geometry %+v is not the atlas's %+v", o.Geometry, a.opts.Geometry)
		}
		if o.Replica >= a.opts.Replicas {
			return fmt.Errorf("disksim: replica %d is outside the atlas's %d replicas", o.Replica, a.opts.Replicas)
		}
	}
	if o.WriteLatencyMinTicks > ticksMax || o.WriteLatencyMeanTicks > ticksMax {
		return fmt.Errorf("disksim: a write latency above %d ticks", uint64(ticksMax))
	}
	if o.PendingMax < 1 || o.RecordMax < 1 {
		return errors.New("disksim: PendingMax and RecordMax must be positive")
	}
	return nil
}
