package explain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recomp/recomp/diff"
	"github.com/recomp/recomp/internal/lazyre"
)

// An argument signature as a framework logs it with a compile request: JAX's "global shapes and
// types", (ShapedArray(float32[8,4]), ShapedArray(float32[32,8], weak_type=True)) in JAX 0.4.30+
// and [ShapedArray(…), …] before. When no dump is given, it is what tells two variants of one
// program apart and names the argument that changed.

var reShaped = lazyre.New(`ShapedArray\(([a-z0-9_]+)\[([0-9, ]*)\]`)

// arg is one argument of a signature.
type arg struct {
	dtype string
	dims  []int64
}

func (a arg) String() string {
	ds := make([]string, len(a.dims))
	for i, d := range a.dims {
		ds[i] = strconv.FormatInt(d, 10)
	}
	return shortDtype(a.dtype) + "[" + strings.Join(ds, ",") + "]"
}

func (a arg) elements() int64 {
	n := int64(1)
	for _, d := range a.dims {
		n *= d
	}
	return n
}

// parseSignature reads the arguments of a logged signature; ok is false when it names none.
func parseSignature(sig string) ([]arg, bool) {
	ms := reShaped.FindAllStringSubmatch(sig, -1)
	if len(ms) == 0 {
		return nil, false
	}
	out := make([]arg, 0, len(ms))
	for _, m := range ms {
		a := arg{dtype: m[1]}
		for _, f := range strings.Split(m[2], ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			d, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, false
			}
			a.dims = append(a.dims, d)
		}
		out = append(out, a)
	}
	return out, true
}

// ShortSignature writes a logged signature the way HLO does (f32[8,4], f32[32,8]); a signature
// recomp cannot read is returned as it is, and "" stays "".
func ShortSignature(sig string) string {
	args, ok := parseSignature(sig)
	if !ok {
		return sig
	}
	ss := make([]string, len(args))
	for i, a := range args {
		ss[i] = a.String()
	}
	return strings.Join(ss, ", ")
}

var dtypeShort = map[string]string{
	"float64": "f64", "float32": "f32", "float16": "f16", "bfloat16": "bf16", "float8_e4m3fn": "f8e4m3fn", "float8_e5m2": "f8e5m2",
	"int64": "s64", "int32": "s32", "int16": "s16", "int8": "s8", "uint64": "u64", "uint32": "u32", "uint16": "u16", "uint8": "u8",
	"bool": "pred", "complex64": "c64", "complex128": "c128",
}

func shortDtype(d string) string {
	if s, ok := dtypeShort[d]; ok {
		return s
	}
	return d
}

// SigChange is what differs between two signatures of one program: the cause kind (as diff
// names them), a summary with old → new, and the arguments that changed.
type SigChange struct {
	kind    diff.CauseKind
	Summary string
	changed []string // "argument 2: f32[128,8] → f32[48,8]"
}

// cause is the change as the cause diff would name, with its advice.
func (c SigChange) Cause() *diff.Cause {
	return &diff.Cause{Kind: c.kind, Summary: c.Summary, Evidence: c.changed, Advice: diff.AdviceFor(c.kind)}
}

// CompareSignatures says what changed from signature a to b; ok is false when either cannot
// be read or they are equal.
func CompareSignatures(a, b string) (SigChange, bool) {
	aa, ok1 := parseSignature(a)
	bb, ok2 := parseSignature(b)
	if !ok1 || !ok2 {
		return SigChange{}, false
	}
	if len(aa) != len(bb) {
		return SigChange{kind: diff.CauseGraphStructure, Summary: fmt.Sprintf("the program takes %d arguments, not %d", len(bb), len(aa))}, true
	}
	var c SigChange
	dtype, rank, other := false, false, false
	lead := map[[2]int64]bool{}
	for i := range aa {
		x, y := aa[i], bb[i]
		if x.String() == y.String() {
			continue
		}
		c.changed = append(c.changed, fmt.Sprintf("argument %d: %s → %s", i+1, x, y))
		switch {
		case x.dtype != y.dtype:
			dtype = true
		case len(x.dims) != len(y.dims):
			rank = true
		default:
			for j := range x.dims {
				if x.dims[j] == y.dims[j] {
					continue
				}
				if j == 0 {
					lead[[2]int64{x.dims[0], y.dims[0]}] = true
				} else {
					other = true
				}
			}
		}
	}
	if len(c.changed) == 0 {
		return SigChange{}, false
	}
	switch {
	case dtype:
		c.kind = diff.CauseDtype
		c.Summary = "an argument's dtype changed"
	case !rank && !other && len(lead) == 1:
		c.kind = diff.CauseBatchSize
		for k := range lead {
			c.Summary = fmt.Sprintf("batch size (leading dimension) changed %d → %d in %d argument(s)", k[0], k[1], len(c.changed))
		}
	default:
		c.kind = diff.CauseInputShape
		c.Summary = fmt.Sprintf("input shape changed in %d argument(s)", len(c.changed))
	}
	return c, true
}

// CoversBy says whether signature big can serve inputs of signature small once they are padded
// (same arguments and dtypes, no dimension smaller), and how many more elements it holds.
func CoversBy(big, small string) (extra int64, ok bool) {
	bb, ok1 := parseSignature(big)
	ss, ok2 := parseSignature(small)
	if !ok1 || !ok2 || len(bb) != len(ss) {
		return 0, false
	}
	for i := range bb {
		if bb[i].dtype != ss[i].dtype || len(bb[i].dims) != len(ss[i].dims) {
			return 0, false
		}
		for j := range bb[i].dims {
			if bb[i].dims[j] < ss[i].dims[j] {
				return 0, false
			}
		}
		extra += bb[i].elements() - ss[i].elements()
	}
	return extra, true
}

// SignatureDistance is how far two signatures are apart: the elements by which their arguments differ
// (−1 when they cannot be compared).
func SignatureDistance(a, b string) int64 {
	aa, ok1 := parseSignature(a)
	bb, ok2 := parseSignature(b)
	if !ok1 || !ok2 || len(aa) != len(bb) {
		return -1
	}
	var d int64
	for i := range aa {
		if aa[i].dtype != bb[i].dtype {
			d += aa[i].elements() + bb[i].elements()
			continue
		}
		x := aa[i].elements() - bb[i].elements()
		if x < 0 {
			x = -x
		}
		d += x
	}
	return d
}
