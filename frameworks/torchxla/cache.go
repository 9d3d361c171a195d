package torchxla

import (
	"errors"
	"math/big"
	"math/bits"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/lazyre"
	"github.com/recomp/recomp/logscan"
)

// PyTorch/XLA's persistent cache (torch_xla.runtime.initialize_cache(path, readonly), which
// sets XLA_PERSISTENT_CACHE_PATH): one file per graph, named by the graph's 128-bit hash in
// decimal (torch_xla/csrc/runtime/cache.h, PersistentCache::GetPath streams the
// torch::lazy::hash_t) — the hash the analysis prints in hex as "Graph Hash" — holding the
// PJRT executable's serialisation (PjRtComputationClient::SerializeComputation). The hash
// covers the graph and the compilation environment (the device and XLA_FLAGS fold into it),
// so its parts cannot be told apart from the file. An entry that cannot be deserialised is
// counted (PersistentCacheDeserializeFailure), removed unless the cache is read-only, and the
// graph compiled and written again; no compile time is stored.

// entryNames are the cache's files: a uint128 in decimal (at most 39 digits).
var entryNames = lazyre.New(`^[0-9]{1,39}$`)

// entryKey is the hash the analysis gives an entry's file name: lowercase hex without leading
// zeros, as the analysis prints it (the name itself when it is no uint128).
func entryKey(name string) string {
	var hi, lo uint64
	for i := 0; i < len(name); i++ {
		d := uint64(name[i] - '0')
		if d > 9 {
			return name
		}
		over, hi10 := bits.Mul64(hi, 10)
		h1, l1 := bits.Mul64(lo, 10)
		var c0, c1, c2 uint64
		lo, c0 = bits.Add64(l1, d, 0)
		hi, c1 = bits.Add64(hi10, h1, 0)
		hi, c2 = bits.Add64(hi, c0, 0)
		if over|c1|c2 != 0 {
			return name // 2^128 or more
		}
	}
	var b [32]byte
	const digits = "0123456789abcdef"
	for i := 31; i >= 16; i-- {
		b[i], lo = digits[lo&15], lo>>4
	}
	for i := 15; i >= 0; i-- {
		b[i], hi = digits[hi&15], hi>>4
	}
	i := 0
	for i < 31 && b[i] == '0' {
		i++
	}
	return string(b[i:])
}

// entryName is the file name of a graph hash as the analysis prints it (hex), "" when it is
// none.
func entryName(key string) string {
	if key == "" || len(key) > 32 {
		return ""
	}
	n, ok := new(big.Int).SetString(key, 16)
	if !ok || n.Sign() < 0 {
		return ""
	}
	return n.String()
}

// entryGraph reads the HLO module's name at the head of an entry: the CPU and GPU clients'
// serialisations start with the compiled module's proto, whose first field is its name
// (SyncTensorsGraph.218), one to four messages deep. "" when the head is something else (a
// TPU executable is opaque).
func entryGraph(head []byte) string {
	b := head
	for depth := 0; depth < 5; depth++ {
		if len(b) < 2 || b[0] != 0x0a { // field 1, length-delimited
			return ""
		}
		n, w := uvarint(b[1:])
		if w == 0 {
			return ""
		}
		b = b[1+w:]
		if n <= 200 && int(n) <= len(b) && moduleName(b[:n]) {
			return string(b[:n])
		}
	}
	return ""
}

func uvarint(b []byte) (uint64, int) {
	var x uint64
	for i := 0; i < len(b) && i < 10; i++ {
		x |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}

// moduleName says whether b reads as an HLO module's name (letters, digits, _ . -).
func moduleName(b []byte) bool {
	if len(b) == 0 || !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if !(c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// persistentCache is PyTorch/XLA's persistent cache as a keyed cache.
type persistentCache struct{}

var _ framework.KeyedCache = persistentCache{}

// errNoTime says PyTorch/XLA's entries store no compile time.
var errNoTime = errors.New("PyTorch/XLA's persistent-cache entries store no compile time")

func (persistentCache) EntryFile(dir, key string) (string, bool) {
	name := entryName(key)
	if name == "" {
		return "", false
	}
	return filepath.Join(dir, name), true
}

func (persistentCache) CompileTime(string) (time.Duration, error) { return 0, errNoTime }

// ShortKey shortens a graph hash to its first 12 digits.
func (persistentCache) ShortKey(k string) string {
	if len(k) > 12 {
		return k[:12] + "…"
	}
	return k
}

// Part: PyTorch/XLA logs no parts of its key.
func (persistentCache) Part(string) framework.KeyPart { return framework.KeyOther }

func (persistentCache) Words() framework.CacheWords { return cacheWords }

var cacheWords = framework.CacheWords{
	FlagsPart:     "XLA flags",
	Keys:          "PyTorch/XLA's graph hashes",
	KeyLog:        "PyTorch/XLA's analysis (Graph Hash)", // it logs no parts of the key: no KeyLogSetting
	Eviction:      "a cache folder cleared or not kept between runs",
	WhyNotWritten: "PyTorch/XLA writes every compiled graph unless initialize_cache was given readonly=True",
	Unreadable: "this PJRT client cannot deserialise executables (PyTorch/XLA 2.9 on CPU cannot: " +
		"'Deserializing serialized executable not supported'), or the entry was written by another torch_xla, libtpu or device",
	OutsideGraph:      "XLA_FLAGS, the device and its topology, or the torch_xla version",
	ReadFailureMetric: "PersistentCacheDeserializeFailure",
	HitMetric:         "PersistentCacheHit",
	MissMetric:        "PersistentCacheMiss",
	Advice: map[string]string{
		"unreadable": "the cache serves only a client that can deserialise executables (TPU and GPU; not CPU in PyTorch/XLA 2.9) and " +
			"entries written by the same torch_xla, libtpu and device: key the cache folder by version and device",
		"never_written": "call torch_xla.runtime.initialize_cache(path, readonly=False) before the first graph compiles, in every process " +
			"(or one writer with readonly=True elsewhere)",
		"key_changed_outside_graph": "keep XLA_FLAGS, the device and topology and the torch_xla version the same between runs that share " +
			"a cache (with XLA_HLO_DEBUG=1 the graph carries the program's line numbers: an edit above the step changes every hash)",
		"evicted": "keep the cache folder between runs (a persistent volume, not a temporary folder)",
	},
}

// deserializeFailure reads PyTorch/XLA's warning that an entry of its persistent cache could not
// be deserialised ("Failed to deserialize executable: UNIMPLEMENTED: Deserializing serialized
// executable not supported." from the CPU client of 2.9), which it counts as
// PersistentCacheDeserializeFailure: recomp counts the lines the same way, so that a run that
// prints no metrics report still says why it compiled what its cache held.
func deserializeFailure(c *logscan.Context, msg string) bool {
	st := c.State().(*analysis)
	st.deserializeFailures++
	c.Emit(logscan.Event{Kind: logscan.FrameworkMetric, Producer: logscan.ProducerTorchXLA, Signal: "ptxla:deserialize_failure",
		Detail: cacheWords.ReadFailureMetric, Count: st.deserializeFailures})
	return true
}
