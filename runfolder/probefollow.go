package runfolder

// ProbeFollower reads a run folder's probe.jsonl as the run writes it (recomp run's live lines):
// each Records reads only the bytes written since the last call, and gives every record so far
// as ReadProbe would give them then (repeated calls folded, at most maxProbeRecords kept, the
// rest counted): memory is bounded whatever the file holds, and a run of many compilations reads
// its records once, not once per compilation.
type ProbeFollower struct {
	tail ProbeTail
	k    probeKeeper
}

// FollowProbe follows the probe records of the run folder dir.
func FollowProbe(dir string) *ProbeFollower {
	return &ProbeFollower{tail: *NewProbeTail(dir)}
}

// Records reads the lines written since the last call and returns every record read so far;
// nil, nil while there is no probe.jsonl, an error when it is not a regular file (a FIFO or a
// device is never read). A line not yet whole waits for its end. The slice is the follower's:
// read it before the next call.
func (p *ProbeFollower) Records() ([]ProbeRecord, error) {
	p.tail.read(func(line []byte) bool {
		p.k.line(line)
		return true
	})
	if p.tail.failed {
		return nil, p.tail.err
	}
	out := p.k.out[:len(p.k.out):len(p.k.out)]
	if p.k.held != nil { // a call's begin whose end is not read yet: kept as ReadProbe keeps it
		out = append(out, *p.k.held)
	}
	return out, nil
}

// Close ends the follower.
func (p *ProbeFollower) Close() error { return p.tail.Close() }
