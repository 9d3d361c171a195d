package torch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recomp/recomp/frameworks/framework"
)

const fxKey = "fwg4lnxym7bsyt3khuawtcqtbehiovoyy252nm6264yjlrzajmqn"

// A key's folder of Inductor's caches: one entry, guarded variants, a write that did not finish,
// and what Inductor never writes.
func TestInductorKeyEntries(t *testing.T) {
	entry := "quq3oal6est7v435xtarrvqbsekmfrgegwwgkxvfakdsv4bnheg"
	for _, c := range []struct {
		p            []string
		files        []string
		state, graph string
		read         string
	}{
		{[]string{"fxgraph", "wg", fxKey}, []string{entry}, "", "", entry},
		{[]string{"fxgraph", "wg", fxKey}, []string{entry, "a" + entry[1:]}, "", "2 guarded variants", "a" + entry[1:]},
		{[]string{"fxgraph", "wg", fxKey}, nil, "partial", "", ""},
		{[]string{"fxgraph", "wg", fxKey}, []string{".4242.139.tmp"}, "partial", "", ""},
		{[]string{"fxgraph", "wg", fxKey}, []string{entry, "notes.txt"}, "foreign", "", entry},
		{[]string{"fxgraph", "ab", fxKey}, []string{entry}, "foreign", "", entry},
		{[]string{"fxgraph", "wg", "backup"}, []string{entry}, "foreign", "", entry},
	} {
		e, ok := fxGraphEntry(c.p, c.files)
		if !ok || e.State != c.state || e.Program != c.graph || e.Read != c.read || e.Key != c.p[2] {
			t.Errorf("%v %v: %+v %v", c.p, c.files, e, ok)
		}
	}
	if _, ok := fxGraphEntry([]string{"fxgraph", "wg"}, nil); ok {
		t.Error("a key-prefix folder is no entry")
	}
	if e, ok := aotAutogradEntry([]string{"aotautograd", "a" + fxKey[1:]}, []string{entry}); !ok || e.State != "" {
		t.Errorf("aotautograd entry: %+v %v", e, ok)
	}
	code := "c" + entry
	if e, ok := codeEntry([]string{"qu"}, []string{code + ".cpp", code + ".so", "cmy" + entry[3:] + ".py"}); ok {
		t.Errorf("a file of another folder's hash: %+v", e)
	}
	if e, ok := codeEntry([]string{"qu"}, []string{code + ".cpp", code + ".so"}); !ok || e.Program != "generated code of 1 module (2 files)" {
		t.Errorf("code folder: %+v %v", e, ok)
	}
	if _, ok := codeEntry([]string{"qu"}, []string{"README"}); ok {
		t.Error("a two-letter folder of other files is not Inductor's")
	}
}

// Inductor's real entries (testdata/runs/torch-2.9/inductor-cache, torch 2.9): a CompiledFxGraph
// names its graph and holds its key's parts; an AOTAutogradCacheEntry names its FX graph.
func TestDescribeInductorEntries(t *testing.T) {
	fx, _ := filepath.Glob("../../testdata/runs/torch-2.9/inductor-cache/cache/fxgraph/*/*/*")
	aot, _ := filepath.Glob("../../testdata/runs/torch-2.9/inductor-cache/cache/aotautograd/*/*")
	if len(fx) != 2 || len(aot) != 2 {
		t.Fatalf("entries %v %v", fx, aot)
	}
	var keys []string
	for _, p := range fx {
		keys = append(keys, filepath.Base(filepath.Dir(p)))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		program, parts, ok := describeFXGraph(b)
		if !ok || !strings.HasPrefix(program, "predict at torch_runs.py:") || !strings.HasSuffix(program, " (graph 0_inference)") {
			t.Errorf("%s: %q %v", p, program, ok)
		}
		got := map[string]framework.Factor{}
		for _, f := range parts {
			got[f.Name] = f
		}
		if len(parts) < 300 {
			t.Errorf("%s: %d parts", p, len(parts))
		}
		for name, want := range map[string]struct {
			part   framework.KeyPart
			prefix string
		}{
			"inductor_config[max_autotune_pointwise]": {framework.KeyFlags, ""},
			"torch_version":     {framework.KeyVersions, "#"},
			"system_info[hash]": {framework.KeyDevice, ""},
			"gm":                {framework.KeyGraph, ""},
			"example_inputs[0]": {framework.KeyInputs, ""},
		} {
			f, ok := got[name]
			if !ok || f.Part != want.part || !strings.HasPrefix(f.Value, want.prefix) {
				t.Errorf("%s: %s = %+v", p, name, f)
			}
		}
		if v := got["inductor_config[max_autotune_pointwise]"].Value; v != "False" && v != "True" {
			t.Errorf("%s: max_autotune_pointwise %q", p, v)
		}
		if !slices.ContainsFunc(parts, func(f framework.Factor) bool {
			return f.Part == framework.KeyInputs && strings.HasPrefix(f.Value, "float32[16, 8] stride (8, 1) cpu #")
		}) {
			t.Errorf("%s: no input float32[16, 8]: %v", p, parts[:8])
		}
	}
	for _, p := range aot {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		program, parts, ok := describeAOTAutograd(b)
		if !ok || !slices.Contains(keys, strings.TrimPrefix(program, "FX graph ")) || len(parts) < 300 {
			t.Errorf("%s: %q %d %v", p, program, len(parts), ok)
		}
		if _, _, ok := describeFXGraph(b); ok {
			t.Errorf("%s: an AOTAutograd entry read as an FX graph", p)
		}
		if _, _, ok := describeAOTAutograd(b[:40]); ok {
			t.Errorf("%s: a cut head read as an entry", p)
		}
	}
	for _, bad := range []string{"", "\x80", "not a pickle at all", "\x80\x04garbage CompiledFxGraph X\xff\xff\xff\xff"} {
		if _, parts, ok := describeFXGraph([]byte(bad)); ok && len(parts) > 0 {
			t.Errorf("%q: parts %v", bad, parts)
		}
	}
}

// A key part's value as shown: short values whole, long or opaque ones short with their hash.
func TestKeyComponent(t *testing.T) {
	h := "mxibia26nanvqq4lqvdfub66benrqh5fqtsyzzj2qnwy7srv2s3"
	for line, want := range map[string]framework.Factor{
		"[" + h + "] inductor_config[precompilation_timeout_seconds]: 3600": fac(framework.KeyFlags, "inductor_config[precompilation_timeout_seconds]", "3600"),
		"[" + h + "] torch_version: <bytes>":                                fac(framework.KeyVersions, "torch_version", "#mxibia26na"),
		"[" + h + "] gm: GraphModule()\n\ndef forward(self, x):\n    mm = torch.ops.aten.mm.default(x, x)\n    relu = torch.ops.aten.relu.default(mm)":                  fac(framework.KeyGraph, "gm", "2 ops #mxibia26na"),
		"[" + h + "] example_inputs[1]: TensorMetadata(dtype=torch.bfloat16, shape=torch.Size([4, 4]), stride=(4, 1), device=device(type='cpu'), layout=torch.strided)": fac(framework.KeyInputs, "example_inputs[1]", "bfloat16[4, 4] stride (4, 1) cpu #mxibia26na"),
		"[" + h + "] fx_kwargs[static_input_idxs]: [" + strings.Repeat("1, ", 40) + "2]":                                                                                fac(framework.KeyFlags, "fx_kwargs[static_input_idxs]", "["+strings.Repeat("1, ", 19)+"1,… #mxibia26na"),
	} {
		got, ok := keyComponent(line)
		if !ok || got != want {
			t.Errorf("%q: %+v %v, want %+v", line, got, ok, want)
		}
	}
	for _, line := range []string{"", "[short] a: b", "gm: GraphModule()", "[" + h + "]no space: x"} {
		if f, ok := keyComponent(line); ok {
			t.Errorf("%q: %+v", line, f)
		}
	}
}

func fac(p framework.KeyPart, name, value string) framework.Factor {
	return framework.Factor{Part: p, Name: name, Value: value}
}

func FuzzDescribeInductor(f *testing.F) {
	if b, err := os.ReadFile("../../testdata/runs/torch-2.9/inductor-cache/truth.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("\x80\x04\x95CompiledFxGraph\x8c\x05hello\x94X\x03\x00\x00\x00abc\x94"))
	f.Fuzz(func(t *testing.T, b []byte) {
		describeFXGraph(b)
		describeAOTAutograd(b)
		pickleEach(b, func(s []byte) { keyComponentBytes(s) })
	})
}

// Inductor's default folder as torch's default_cache_dir names it: tempfile.gettempdir() (TMPDIR,
// TEMP, TMP, then /tmp), getpass.getuser() (LOGNAME, USER, LNAME, USERNAME first); none when
// TORCHINDUCTOR_CACHE_DIR is set, even empty (torch then uses that).
func TestDefaultCacheFolder(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"TMPDIR=/s", "USER=u", "LOGNAME=l"}, "/s/torchinductor_l"},
		{[]string{"TEMP=/t", "USER=a\\b|c"}, "/t/torchinductor_a_b_c"},
		{[]string{"USERNAME=w"}, "/tmp/torchinductor_w"},
		{[]string{"USER=u", "TORCHINDUCTOR_CACHE_DIR=/c"}, ""},
		{[]string{"USER=u", "TORCHINDUCTOR_CACHE_DIR="}, ""},
	} {
		if got, from := defaultCacheFolder(c.env); got != c.want || (got != "" && !strings.Contains(from, "TORCHINDUCTOR_CACHE_DIR unset")) {
			t.Errorf("%v: %q (%s), want %q", c.env, got, from, c.want)
		}
	}
}
