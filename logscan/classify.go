package logscan

func (s *Scanner) emit(h header, lineNo int, ev Event) {
	ev.File, ev.Line, ev.Rank = s.name, lineNo, s.rank
	if h.producer != "" {
		ev.Producer = h.producer
	}
	ev.Time, ev.DateKnown, ev.Stamp = h.t, h.dateKnown, h.stamp
	if s.duplicate(ev) {
		return
	}
	s.last, s.hasLast = ev, true
	s.pending = append(s.pending, ev)
}

// duplicate reports whether ev repeats the event just before it from a line shortly above: a
// Python program whose logging has two handlers (JAX 0.4's own and the program's root
// handler) prints every record twice, in two formats.
func (s *Scanner) duplicate(ev Event) bool {
	p := s.last
	if !s.hasLast || p.Line == ev.Line || ev.Line-p.Line > 2*maxExplanation+2 ||
		!(s.g.dropRepeats[ev.Producer] || ev.Kind == Retrace || ev.Kind == Trace) {
		return false
	}
	return p.Kind == ev.Kind && p.Producer == ev.Producer && p.Module == ev.Module && p.Hash == ev.Hash &&
		p.Path == ev.Path && p.Signature == ev.Signature && p.Reason == ev.Reason && p.Detail == ev.Detail &&
		p.Duration == ev.Duration && p.Count == ev.Count
}

// classify turns one record's message into events and reports whether it recognised it. Each
// framework's rules are tried in turn; within a framework the first rule whose literal test
// passes decides.
func (s *Scanner) classify(msg string, h header, lineNo int) bool {
	s.flushHeld()
	for i, fw := range s.g.frameworks {
		for j := range fw.Rules {
			r := &fw.Rules[j]
			if !r.accepts(msg) {
				continue
			}
			c := &Context{s: s, fw: i, h: h, line: lineNo}
			if !r.ProducerFromLayout {
				c.h.producer = ""
			}
			if r.ByEffect {
				n := len(s.pending)
				r.Handle(c, msg)
				if len(s.pending) > n || s.held != nil {
					return true
				}
			} else if r.Handle(c, msg) {
				return true
			}
			break
		}
	}
	return false
}
