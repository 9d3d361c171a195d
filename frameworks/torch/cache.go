package torch

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	osuser "os/user"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/recomp/recomp/frameworks/framework"
	"github.com/recomp/recomp/internal/lazyre"
)

// Inductor's caches under TORCHINDUCTOR_CACHE_DIR (default /tmp/torchinductor_<user>), as torch
// 2.9 writes them (torch/_inductor/codecache.py, torch/_inductor/runtime/cache_dir_utils.py,
// torch/_functorch/_aot_autograd/autograd_cache.py):
//
//	fxgraph/<key[1:3]>/<key>/<entry>   the FX-graph cache (FxGraphCache): key "f" + 51 base32 digits of
//	                                   the hash of its parts; each file one guarded variant, a pickled
//	                                   CompiledFxGraph named by the hash of its bytes
//	aotautograd/<key>/<entry>          the AOTAutograd cache: key "a" + 51 digits, a pickled
//	                                   AOTAutogradCacheEntry holding its FX graphs' keys
//	<hash[1:3]>/c<hash>.{py,cpp,so,…}  the generated code and compiled kernels (code_hash)
//	locks/, cache/<system>, dynamo/,   file locks, the local autotuning cache, dynamo's PGO and
//	triton/<device>/                   package caches, Triton's kernels (GPU): counted, not entries
//
// An entry is written to .<pid>.<thread>.tmp beside its name and renamed (write_atomic): a .tmp
// file left alone is a writer that did not finish. Both pickles keep the FX graph's key parts
// as text (_fx_graph_cache_debug_lines, the lines TORCH_TRACE's fx_graph_cache_miss gives),
// and a CompiledFxGraph its generated code (whose "# AOT ID" names the graph) and the user's
// lines it came from (cache_linemap): recomp reads them there, without unpickling.
var (
	reInductorKey   = lazyre.New(`^[fa][a-z0-9]{51}$`)
	reInductorEntry = lazyre.New(`^[a-z0-9]{51}$`)
	reInductorTmp   = lazyre.New(`^\..*\.tmp$`)
	reInductorCode  = lazyre.New(`^c[a-z0-9]{51}\.[a-z.]+$`)
	reCodeFolder    = lazyre.New(`^[a-z0-9]{2}$`)
)

// inductorRemedy is what to do when a part of an Inductor cache key changed.
var inductorRemedy = map[framework.KeyPart]string{
	framework.KeyVersions: "the torch version (its source hash) changed: a cache serves only the torch that wrote it; fill it with " +
		"the torch that runs",
	framework.KeyDevice: "the system changed (the device, CUDA or ROCm version, Triton, the C++ compiler): fill the cache on the " +
		"machine image that runs",
	framework.KeyFlags: "an Inductor config value changed (torch._inductor.config, or its TORCHINDUCTOR_* variable): compile with " +
		"the same config as the run that filled the cache",
	framework.KeyInputs: "the inputs' shapes, dtypes or strides changed: feed the same shapes (pad to fixed sizes), or mark the " +
		"dimension dynamic (torch._dynamo.mark_dynamic) so that one entry serves every size",
	framework.KeyGraph: "the graph changed (the model's code, a Python constant dynamo baked in, another torch decomposition): " +
		"the same code and constants reuse the entry",
	framework.KeyOther: "keep TORCHINDUCTOR_CACHE_DIR on a volume that outlives the pod (the default is under /tmp), and the key's " +
		"parts the same",
}

var (
	fxGraphCache = &framework.CacheTree{Kind: "inductor-fx", Top: lazyre.New(`^fxgraph$`), MaxDepth: 3,
		Entry: fxGraphEntry, Describe: describeFXGraph, Remedy: inductorRemedy}
	aotAutogradCache = &framework.CacheTree{Kind: "aotautograd", Top: lazyre.New(`^aotautograd$`), MaxDepth: 2,
		Entry: aotAutogradEntry, Describe: describeAOTAutograd, Remedy: inductorRemedy}
	inductorCode = &framework.CacheTree{Kind: "inductor-code", Top: reCodeFolder, MaxDepth: 1, Entry: codeEntry,
		Remedy: inductorRemedy}
)

// cacheFolders finds Inductor's cache in TORCHINDUCTOR_CACHE_DIR.
// defaultCacheFolder is where Inductor puts its cache when TORCHINDUCTOR_CACHE_DIR is not set:
// tempfile.gettempdir()/torchinductor_<getpass.getuser()>, the user's name with \/:*?"<>| made _
// (torch/_inductor/runtime/cache_dir_utils.py default_cache_dir).
func defaultCacheFolder(env []string) (string, string) {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	if _, set := vars["TORCHINDUCTOR_CACHE_DIR"]; set {
		return "", ""
	}
	tmp := cmp.Or(vars["TMPDIR"], vars["TEMP"], vars["TMP"], "/tmp")
	user := cmp.Or(vars["LOGNAME"], vars["USER"], vars["LNAME"], vars["USERNAME"])
	if user == "" {
		if u, err := osuser.Current(); err == nil {
			user = u.Username
		}
	}
	if user == "" {
		return "", ""
	}
	user = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`\/:*?"<>|`, r) {
			return '_'
		}
		return r
	}, user)
	return filepath.Join(tmp, "torchinductor_"+user), "default: Inductor's, TORCHINDUCTOR_CACHE_DIR unset"
}

func cacheFolders(name, value string) []string {
	if name == "TORCHINDUCTOR_CACHE_DIR" && value != "" {
		return []string{value}
	}
	return nil
}

// fxGraphEntry reads a folder of the FX-graph cache: fxgraph/<key[1:3]>/<key>.
func fxGraphEntry(p []string, files []string) (framework.TreeEntry, bool) {
	if len(p) != 3 {
		return framework.TreeEntry{}, false
	}
	e := keyEntry(p[2], files)
	if e.State == "" && p[1] != p[2][1:3] {
		e.State = "foreign" // not where Inductor puts that key
	}
	return e, true
}

// aotAutogradEntry reads a folder of the AOTAutograd cache: aotautograd/<key>.
func aotAutogradEntry(p []string, files []string) (framework.TreeEntry, bool) {
	if len(p) != 2 {
		return framework.TreeEntry{}, false
	}
	return keyEntry(p[1], files), true
}

// keyEntry is a key's folder: its entries (one a guarded variant), a write that did not finish,
// or something Inductor does not write.
func keyEntry(key string, files []string) framework.TreeEntry {
	e := framework.TreeEntry{Key: key}
	var entries, tmp, other int
	for _, f := range files {
		switch {
		case reInductorEntry.MatchString(f):
			if entries == 0 || f < e.Read {
				e.Read = f // Inductor tries them in name order
			}
			entries++
		case reInductorTmp.MatchString(f):
			tmp++
		default:
			other++
		}
	}
	switch {
	case !reInductorKey.MatchString(key) || other > 0:
		e.State = "foreign"
	case entries == 0:
		e.State = "partial" // the folder made, no entry renamed into it
	}
	if entries > 1 {
		e.Program = fmt.Sprintf("%d guarded variants", entries)
	}
	return e
}

// codeEntry reads a folder of generated code: c<hash>.py, .cpp, .so and their kin, for the
// hashes whose digits 1–2 name the folder. A folder with anything else is not Inductor's.
func codeEntry(p []string, files []string) (framework.TreeEntry, bool) {
	if len(p) != 1 || len(files) == 0 {
		return framework.TreeEntry{}, false
	}
	kernels := map[string]bool{}
	for _, f := range files {
		if !reInductorCode.MatchString(f) || f[1:3] != p[0] {
			return framework.TreeEntry{}, false
		}
		kernels[f[:52]] = true
	}
	return framework.TreeEntry{Program: fmt.Sprintf("generated code of %s (%d files)", plural(len(kernels), "module"), len(files))}, true
}

// describeFXGraph reads a pickled CompiledFxGraph: its key's parts, and the graph it is (its
// generated code's AOT ID, the user's first line in it).
func describeFXGraph(data []byte) (string, []framework.Factor, bool) {
	if !isPickle(data, "CompiledFxGraph") {
		return "", nil, false
	}
	sp := partsScratch.Get().(*[]framework.Factor)
	parts := (*sp)[:0]
	pickleEach(data, func(b []byte) {
		if f, ok := keyComponentBytes(b); ok && len(parts) < maxKeyParts {
			parts = append(parts, f)
		}
	})
	return fxProgram(data), keptParts(sp, parts), true
}

// partsScratch holds an entry's key parts while its pickle is read (some 400 for an FX graph):
// the parts are then copied out at their size, not kept in a slice grown by doubling.
var partsScratch = sync.Pool{New: func() any { return new([]framework.Factor) }}

// keptParts copies parts out of the scratch slice sp holds, and gives sp back (nil for none).
func keptParts(sp *[]framework.Factor, parts []framework.Factor) []framework.Factor {
	var out []framework.Factor
	if len(parts) > 0 {
		out = slices.Clone(parts)
	}
	clear(parts)
	*sp = parts[:0]
	partsScratch.Put(sp)
	return out
}

// describeAOTAutograd reads a pickled AOTAutogradCacheEntry: the FX graphs it holds (their keys)
// and the first one's key parts.
func describeAOTAutograd(data []byte) (string, []framework.Factor, bool) {
	if !isPickle(data, "AOTAutogradCacheEntry") {
		return "", nil, false
	}
	var keys []string
	sp := partsScratch.Get().(*[]framework.Factor)
	parts := (*sp)[:0]
	pickleEach(data, func(b []byte) {
		if f, ok := keyComponentBytes(b); ok && len(parts) < maxKeyParts {
			parts = append(parts, f)
		} else if len(b) == 52 && reInductorKey.Match(b) && !slices.Contains(keys, string(b)) {
			keys = append(keys, string(b))
		}
	})
	program := ""
	if len(keys) > 0 {
		program = "FX graphs " + strings.Join(keys, ", ")
		if len(keys) == 1 {
			program = "FX graph " + keys[0]
		}
	}
	return program, keptParts(sp, parts), true
}

// isPickle says whether data is a pickle (protocol 2 or later) of class name.
func isPickle(data []byte, class string) bool {
	head := data[:min(len(data), 512)]
	return len(data) > 2 && data[0] == 0x80 && bytes.Contains(head, []byte(class))
}

// pickleEach calls f with each text string of a pickle (SHORT_BINUNICODE, BINUNICODE), in
// order: found by their opcodes and lengths, without running the pickle. The bytes are data's.
func pickleEach(data []byte, f func([]byte)) {
	for i, n := 0, 0; i < len(data) && n < maxPickleStrings; i++ {
		var size, at int
		switch data[i] {
		case 0x8c: // SHORT_BINUNICODE: 1-byte length
			if i+1 >= len(data) {
				return
			}
			size, at = int(data[i+1]), i+2
		case 'X': // BINUNICODE: 4-byte length
			if i+5 > len(data) {
				return
			}
			size, at = int(binary.LittleEndian.Uint32(data[i+1:])), i+5
		default:
			continue
		}
		// a string is followed by MEMOIZE (0x94); keep those whose length fits
		if size < 0 || at+size > len(data) || (at+size < len(data) && data[at+size] != 0x94) {
			continue
		}
		f(data[at : at+size])
		n++
		i = at + size - 1
	}
}

// maxPickleStrings bounds the strings read from one entry.
const maxPickleStrings = 1 << 16

// fxProgram names the graph of a CompiledFxGraph: its AOT ID ("0_inference", "1_forward") and the
// user's line in its line map ("predict at prog.py:6").
func fxProgram(data []byte) string {
	id := ""
	if i := bytes.Index(data, []byte("# AOT ID: ['")); i >= 0 {
		rest := data[i+len("# AOT ID: ['"):]
		if j := bytes.IndexByte(rest, '\''); j > 0 && j < 64 {
			id = string(rest[:j])
		}
	}
	where := ""
	if i := bytes.Index(data, []byte(`File "`)); i >= 0 {
		if m := reLinemap.FindSubmatch(data[i:min(len(data), i+1024)]); m != nil {
			where = fmt.Sprintf("%s at %s:%s", m[3], path.Base(string(m[1])), m[2])
		}
	}
	switch {
	case id != "" && where != "":
		return where + " (graph " + id + ")"
	case id != "":
		return "graph " + id
	}
	return where
}

// reLinemap is a frame of a CompiledFxGraph's line map: the user's code the graph came from.
var reLinemap = lazyre.New(`File "([^"\n]{1,512})", line (\d+), in ([A-Za-z_<][\w<>.]{0,128})`)

// maxKeyParts bounds the parts read of one key (torch 2.9's FX-graph key has about 400).
const maxKeyParts = 2048

// keyComponent reads one key part: its name, what it is about, and its value as recomp shows it
// (a long value by a short form and its hash, so that two values that differ never read alike).
// A part is one debug line of the key: "[hash] name: value", the hash 51 or 52 base32 digits.
func keyComponent(line string) (framework.Factor, bool) { return keyComponentBytes([]byte(line)) }

func keyComponentBytes(line []byte) (framework.Factor, bool) {
	if len(line) < 56 || line[0] != '[' || (line[52] != ']' && line[53] != ']') {
		return framework.Factor{}, false
	}
	end := bytes.IndexByte(line, ']')
	if end < 52 || end > 53 || !isBase32(line[1:end]) || line[end+1] != ' ' {
		return framework.Factor{}, false
	}
	hash, rest := line[1:end], line[end+2:]
	name, value, ok := bytes.Cut(rest, []byte(": "))
	if !ok || len(name) == 0 || len(name) > 200 || bytes.IndexByte(name, '\n') >= 0 {
		return framework.Factor{}, false
	}
	n := internBytes(name)
	return framework.Factor{Part: componentPart(n), Name: n, Value: componentValue(n, value, hash)}, true
}

func isBase32(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '2' || c > '7') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// interned are the names and short values of key parts read so far: every entry of a cache
// repeats them (some 400 names, most values True, False or None), so each is kept once.
var interned struct {
	sync.Mutex
	m map[string]string
}

// maxInterned bounds the strings interned.
const maxInterned = 1 << 14

func internBytes(b []byte) string {
	if len(b) > 64 {
		return string(b)
	}
	interned.Lock()
	defer interned.Unlock()
	if v, ok := interned.m[string(b)]; ok {
		return v
	}
	if interned.m == nil {
		interned.m = map[string]string{}
	}
	s := string(b)
	if len(interned.m) < maxInterned {
		interned.m[s] = s
	}
	return s
}

// componentPart says what a part of an Inductor key is about.
func componentPart(name string) framework.KeyPart {
	base := name
	if i := strings.IndexByte(name, '['); i >= 0 {
		base = name[:i]
	}
	switch base {
	case "gm":
		return framework.KeyGraph
	case "example_inputs":
		return framework.KeyInputs
	case "torch_version", "triton_version":
		return framework.KeyVersions
	case "system_info":
		return framework.KeyDevice
	}
	return framework.KeyFlags // inductor_config, fx_kwargs, the settings and custom passes hashed in
}

// componentValue is a part's value as shown: short values as they are, the graph by its op count,
// an input by its dtype, shape and device, anything else long or opaque by its start; each
// shortened value with its hash.
func componentValue(name string, value, hash []byte) string {
	short := string(hash[:10])
	switch {
	case name == "gm":
		return fmt.Sprintf("%d ops #%s", len(reGraphOp.FindAllIndex(value, -1)), short)
	case bytes.HasPrefix(value, []byte("TensorMetadata(")):
		return tensorMeta(value) + " #" + short
	case string(value) == "<bytes>":
		return "#" + short
	case len(value) > 80 || bytes.IndexByte(value, '\n') >= 0:
		first, _, _ := bytes.Cut(value, []byte("\n"))
		if len(first) > 60 {
			first = first[:60]
		}
		return string(first) + "… #" + short
	}
	return internBytes(value)
}

// reGraphOp is a node of a graph module's code: "    relu = torch.ops.aten.relu.default(mm)".
var reGraphOp = lazyre.New(`(?m)^ +\w+ = `)

// reMeta reads the fields of a TensorMetadata that say what an input is.
var reMeta = lazyre.New(`dtype=torch\.(\w+), shape=torch\.Size\(\[([^\]]*)\]\), stride=\(([^)]*)\), device=device\(type='(\w+)'`)

// tensorMeta writes an input's metadata short: float32[16, 8] stride (8, 1) cpu.
func tensorMeta(v []byte) string {
	m := reMeta.FindSubmatch(v)
	if m == nil {
		return "TensorMetadata(…)"
	}
	return fmt.Sprintf("%s[%s] stride (%s) %s", m[1], m[2], m[3], m[4])
}
