package logscan

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// readAhead is the goroutine of Options.ReadAhead: it reads the input into chunks, cuts each at
// its last newline as step does, and runs the prefilter on it, while the Scanner parses the
// chunk before. Chunks go round between the two: ready in input order, back on free once
// parsed.
type readAhead struct {
	ready    chan *chunk
	free     chan *chunk
	stop     chan struct{}
	stopOnce sync.Once
}

// chunk is one region of the input, read and prefiltered.
type chunk struct {
	buf    []byte
	region []byte
	spans  []span
	parts  []partScratch
	swept  []span // lines holding a sweep word and no anchor
	rs     regionScan
	n      int64  // bytes read into it
	long   bool   // region is a piece of a line longer than the buffer
	tail   []byte // at the end of the input, the unterminated last line's last maxTail bytes
	final  bool   // the input ends with it
	err    error  // the read error that ended the input (final)
	failed any    // a panic while reading, raised again by the Scanner
}

// aheadChunks is how many chunks go round: one parsed while the next is read.
const aheadChunks = 2

func (s *Scanner) startAhead() {
	a := &readAhead{ready: make(chan *chunk, aheadChunks), free: make(chan *chunk, aheadChunks), stop: make(chan struct{})}
	a.free <- &chunk{buf: s.buf}
	for range aheadChunks - 1 {
		a.free <- &chunk{buf: make([]byte, len(s.buf))}
	}
	s.ahead = a
	go s.readChunks(a)
}

// readChunks is the read-ahead goroutine. It touches only the reader, the prefilter and its
// chunks; it ends after the final chunk, or when the Scanner is closed.
func (s *Scanner) readChunks(a *readAhead) {
	var carry []byte // the start of a line the last chunk's region left out
	eof := false
	var rerr error
	var c *chunk
	defer func() {
		if r := recover(); r != nil && c != nil {
			c.failed, c.final = r, true
			a.ready <- c // never blocks: ready holds every chunk there is
		}
	}()
	for {
		select {
		case c = <-a.free:
		case <-a.stop:
			return
		}
		end := copy(c.buf, carry)
		c.n, c.long, c.tail, c.err = 0, false, nil, nil
		for {
			for !eof && end < len(c.buf) {
				n, err := s.r.Read(c.buf[end:])
				end += n
				c.n += int64(n)
				if err == io.EOF {
					eof = true
				} else if err != nil {
					rerr = fmt.Errorf("%s: %w", s.name, err)
					eof = true
				}
				if n > 0 && bytes.IndexByte(c.buf[end-n:end], '\n') >= 0 {
					break
				}
			}
			data := c.buf[:end]
			if eof {
				c.region = data
				break
			}
			if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
				c.region = data[:i+1]
				break
			}
			if end == len(c.buf) {
				c.region, c.long = data, true // a line longer than the buffer: this piece on its own
				break
			}
			// need more input: read on into the same chunk
		}
		region := c.region
		if eof && len(region) > 0 && region[len(region)-1] != '\n' {
			t := region[bytes.LastIndexByte(region, '\n')+1:]
			c.tail = append([]byte(nil), t[max(0, len(t)-maxTail):]...)
		}
		c.final, c.err = eof, rerr
		c.spans, c.swept, c.rs = s.prefilter(region).candidates(region, c.spans[:0], c.swept[:0], &c.parts, true)
		carry = c.buf[len(region):end]
		a.ready <- c // never blocks
		if eof {
			c = nil
			return
		}
		c = nil
	}
}

// stepAhead is step with Options.ReadAhead: it parses the next chunk the read-ahead goroutine
// made, as step parses the region it reads.
func (s *Scanner) stepAhead() {
	if s.ahead == nil {
		s.startAhead()
	}
	c := <-s.ahead.ready
	if c.failed != nil {
		s.done = true
		panic(c.failed)
	}
	s.stats.Bytes += c.n
	if c.long && !s.longWarned {
		s.warn(s.line, "line is longer than %d bytes: scanned in pieces", len(s.buf))
		s.longWarned = true
	}
	if c.tail != nil {
		s.tail = append(s.tail[:0], c.tail...)
	}
	if c.final {
		s.eof, s.err = true, c.err
	}
	s.sniff(c.region)
	s.parseRegion(c.region, c.spans, c.swept, c.rs)
	if len(c.region) > 0 {
		s.lastByte = c.region[len(c.region)-1]
	}
	if c.final {
		s.finish()
		return
	}
	s.ahead.free <- c
}

// Close stops the read-ahead goroutine of a Scanner made with Options.ReadAhead that is dropped
// before the end of its input (it ends by itself at the end). It does nothing otherwise.
func (s *Scanner) Close() {
	if a := s.ahead; a != nil {
		a.stopOnce.Do(func() { close(a.stop) })
	}
}
