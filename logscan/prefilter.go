package logscan

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"sync"
	"unsafe"
)

// anchorStrings are the literals of which a line must contain at least one to be parsed at
// all. Every message the classifier knows contains one of them (TestAnchorsCoverMessages checks
// it). They are at least minAnchor bytes long: the longer the shortest one, the further the
// prefilter skips.
var anchorStrings = []string{
	"ompilation",            // XLA compilation, Compilation Finished, Graph compilation, Compilation Analysis, persistent compilation cache
	"OMPILATION",            // JAX: PERSISTENT COMPILATION CACHE MISS
	"compiling ",            // Begin compiling Poplar engine, TF: Instantly compiling for signature
	"Compiling ",            // Compiling module, JAX: Compiling jit(f) with global shapes
	" compiled ",            // has not been compiled yet
	"h compiled",            // PopART: Graph compiled
	"Compiled cluster",      // TF: Compiled cluster using XLA!
	" times, compile time:", // TF: Compiled S N times, compile time: T us
	"executable",            // PopART executables, in executable cache
	"Executable",            // PopART: Saving serialized Executablex
	"ing phase: ",           // Poplar Starting phase: / Ending phase:
	".poplar_exec",          // TF-IPU cache files
	".xla_engine",           // TF-IPU cache files, SDK <= 1.4
	"ngine loaded",          // PopART Engine loaded
	"tf.function retracing", // TF: triggered tf.function retracing
	"TRACING CACHE MISS",    // JAX: jax_explain_cache_misses
	"pt-xla-profiler",       // PyTorch/XLA auto-metrics
	"cution Analysis",       // PyTorch/XLA: Execution Analysis
	"mputation hash:",       // PyTorch/XLA: Computation hash:
	"CompileTime",           // PyTorch/XLA metrics report: Metric: CompileTime
	"achedCompile",          // PyTorch/XLA metrics report: Counter: CachedCompile, UncachedCompile
	"PersistentCache",       // PyTorch/XLA metrics report: the persistent cache's counters
	"new FuncGraph",         // TF (level 1): Creating new FuncGraph for Python function
	"num_inputs=",           // TF: the device compiler's inputs of a compilation
	"ady Compiled",          // TF: Already Compiled for signature
}

// Anchors returns the prefilter's literals (a copy), for tools that compare recomp with grep
// on the same patterns.
func Anchors() []string { return append([]string(nil), anchorStrings...) }

// prefilter finds the lines that contain an anchor in one pass over the text, with a
// Horspool-style shift table over byte pairs (Wu-Manber with a block of 2): at each window of
// m bytes (the shortest anchor), the pair at its end says how far the window can move before
// an anchor could start in it, so most of the text is skipped without being compared.
type prefilter struct {
	m     int            // window: the length of the shortest anchor
	shift [1 << 16]uint8 // per byte pair at the window's end: how far the window may move
	slot  [1 << 16]uint8 // per byte pair with shift 0: 1 + index into cands
	cands [][]int        // anchors whose first m bytes end with that pair
	pats  [][]byte
}

var anchorFilter = newPrefilter(anchorStrings)

func newPrefilter(anchors []string) *prefilter {
	p := &prefilter{m: 255}
	for _, a := range anchors {
		p.pats = append(p.pats, []byte(a))
		p.m = min(p.m, len(a))
	}
	for i := range p.shift {
		p.shift[i] = uint8(p.m - 1)
	}
	for k, a := range p.pats {
		for j := 0; j+2 <= p.m; j++ {
			pair := pairKey(a[j], a[j+1])
			p.shift[pair] = min(p.shift[pair], uint8(p.m-2-j))
		}
		pair := pairKey(a[p.m-2], a[p.m-1])
		if p.slot[pair] == 0 {
			p.cands = append(p.cands, nil)
			p.slot[pair] = uint8(len(p.cands))
		}
		s := p.slot[pair] - 1
		p.cands[s] = append(p.cands[s], k)
	}
	return p
}

// pairKey is the table index of two consecutive bytes: their value as a uint16 in this
// machine's byte order, which is how lines reads them.
func pairKey(a, b byte) int { return int(binary.NativeEndian.Uint16([]byte{a, b})) }

// span is one candidate line: text[start:end], without its newline.
type span struct{ start, end int }

// lines appends to out the lines of text (which starts at a line start) that contain an
// anchor, with offsets shifted by base.
func (p *prefilter) lines(text []byte, base int, out []span) []span {
	m := p.m
	pos, last := 0, len(text)-m
	if last < 0 {
		return out
	}
	// The window's last two bytes are read as one native-order uint16 (see pairKey);
	// pos <= last keeps every read inside text.
	end := unsafe.Pointer(unsafe.SliceData(text[m-2:]))
	for pos <= last {
		pair := int(*(*uint16)(unsafe.Add(end, pos)))
		if s := p.shift[pair]; s != 0 {
			pos += int(s)
			continue
		}
		found := false
		for _, k := range p.cands[p.slot[pair]-1] {
			if bytes.HasPrefix(text[pos:], p.pats[k]) {
				found = true
				break
			}
		}
		if !found {
			pos++
			continue
		}
		ls := bytes.LastIndexByte(text[:pos], '\n') + 1
		le := len(text)
		if j := bytes.IndexByte(text[pos:], '\n'); j >= 0 {
			le = pos + j
		}
		out = append(out, span{base + ls, base + le})
		pos = le + 1
	}
	return out
}

// parallelMin is the smallest part of a region worth handing to a goroutine of its own.
const parallelMin = 256 << 10

// candidates returns the candidate lines of region, using up to GOMAXPROCS goroutines on
// parts split at line boundaries. parts is scratch space reused between calls.
func (p *prefilter) candidates(region []byte, out []span, parts *[][]span) []span {
	n := min(runtime.GOMAXPROCS(0), len(region)/parallelMin)
	if n <= 1 {
		return p.lines(region, 0, out)
	}
	for len(*parts) < n {
		*parts = append(*parts, nil)
	}
	bounds := make([]int, n+1)
	for i := 1; i < n; i++ {
		b := len(region) * i / n
		if b < bounds[i-1] {
			b = bounds[i-1]
		}
		if j := bytes.IndexByte(region[b:], '\n'); j >= 0 {
			b += j + 1
		} else {
			b = len(region)
		}
		bounds[i] = b
	}
	bounds[n] = len(region)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			(*parts)[i] = p.lines(region[bounds[i]:bounds[i+1]], bounds[i], (*parts)[i][:0])
		}()
	}
	wg.Wait()
	for i := range n {
		out = append(out, (*parts)[i]...)
	}
	return out
}
