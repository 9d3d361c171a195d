package xla_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/recomp/recomp/internal/scantest"
	"github.com/recomp/recomp/logscan"
)

// got lists the events of a log as "kind module duration" at their lines.
func got(t *testing.T, log string) string {
	t.Helper()
	evs, _ := scantest.Scan(t, log, logscan.Options{})
	var out []string
	for _, ev := range evs {
		s := string(ev.Kind) + " " + ev.Module
		if ev.Duration > 0 {
			s += " " + ev.Duration.String()
		}
		out = append(out, s+" @"+strconv.Itoa(ev.Line))
	}
	return strings.Join(out, ", ")
}

// XLA's slow-compile alarm in each layout, quoted from real logs.
func TestSlowCompileAlarm(t *testing.T) {
	for _, c := range []struct{ name, log, want string }{
		// jax-ml/jax#8229 (JAX on GPU, Oct 2021): the module on the line after the alarm.
		{"module on its own line", "2021-10-15 02:51:03.767536: E external/org_tensorflow/tensorflow/compiler/xla/service/slow_operation_alarm.cc:55]\n" +
			"********************************\n" +
			"Very slow compile?  If you want to file a bug, run with envvar XLA_FLAGS=--xla_dump_to=/tmp/foo and attach the results.\n" +
			"Compiling module jit__threefry_split__3.20\n" +
			"********************************\n",
			"compile_begin jit__threefry_split__3.20 @3"},
		// A 2019 JAX log (jax_nodes): no module named, two alarms, two slow compilations.
		{"no module", "2019-11-09 12:12:03.796123: E external/org_tensorflow/tensorflow/compiler/xla/service/slow_operation_alarm.cc:55] \n" +
			"********************************\n" +
			"Very slow compile?  If you want to file a bug, run with envvar XLA_FLAGS=--xla_dump_to=/tmp/foo and attach the results.\n" +
			"********************************\n" +
			"2019-11-09 13:30:13.491049: E external/org_tensorflow/tensorflow/compiler/xla/service/slow_operation_alarm.cc:55] \n" +
			"********************************\n" +
			"Very slow compile?  If you want to file a bug, run with envvar XLA_FLAGS=--xla_dump_to=/tmp/foo and attach the results.\n" +
			"********************************\n",
			"compile_begin  @3, compile_begin  @7"},
		// openxla/xla#23924 (Reactant.jl, 2025): the module in brackets, the time it took, and the
		// alarm's text again as part of the "took" record.
		{"module in brackets, with its time", "2025-03-19 07:30:02.045318: E external/xla/xla/service/slow_operation_alarm.cc:73] \n" +
			"********************************\n" +
			"[Compiling module reactant_loop_] Very slow compile? If you want to file a bug, run with envvar XLA_FLAGS=--xla_dump_to=/tmp/foo and attach the results.\n" +
			"********************************\n" +
			"2025-03-19 07:30:14.895694: E external/xla/xla/service/slow_operation_alarm.cc:140] The operation took 2m12.850942799s\n" +
			"\n" +
			"********************************\n" +
			"[Compiling module reactant_loop_] Very slow compile? If you want to file a bug, run with envvar XLA_FLAGS=--xla_dump_to=/tmp/foo and attach the results.\n" +
			"********************************\n",
			"compile_begin reactant_loop_ @3, compile_end reactant_loop_ 2m12.850942799s @5"},
		// openxla's slow_operation_alarm.cc today: the context before "The operation took" too,
		// and a log that begins after the alarm fired.
		{"took with its context, alarm not in the log", "E0319 07:30:14.895694 1234 slow_operation_alarm.cc:140] [Compiling module jit_step.7] The operation took 1h2m3.5s\n" +
			"\n" +
			"********************************\n" +
			"[Compiling module jit_step.7] Very slow compile?  If you want to file a bug, run with envvar XLA_FLAGS=--xla_dump_to=/tmp/foo and attach the results.\n" +
			"********************************\n",
			"compile_begin jit_step.7 @4, compile_end jit_step.7 1h2m3.5s @4"},
		// A build without optimisations says "Slow compile?" after 10 s.
		{"debug build", "[Compiling module jit_f.1] Slow compile?  XLA was built without compiler optimizations, which can be slow.  Try rebuilding with -c opt.\n",
			"compile_begin jit_f.1 @1"},
		// TF's tf.function module names end with a space inside the brackets.
		{"TF module", "[Compiling module a_inference_f ] Very slow compile? If you want to file a bug, run with envvar XLA_FLAGS=--xla_dump_to=/tmp/foo\n",
			"compile_begin a_inference_f @1"},
		// XLA GPU's ptxas lines accompany a compilation, they are none: a notebook's output (Dec
		// 2023, asm_compiler.cc) and Lux.jl's documentation build (2025, subprocess_compilation.cc,
		// whose file name the prefilter's "ompilation" finds).
		{"ptxas", "2023-12-08 15:24:09.030037: W external/xla/xla/stream_executor/gpu/asm_compiler.cc:231] Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 8.9\n" +
			"2023-12-08 15:24:09.030055: W external/xla/xla/stream_executor/gpu/asm_compiler.cc:234] Used ptxas at ptxas\n" +
			"2025-03-11 22:49:11.254444: I external/xla/xla/stream_executor/cuda/subprocess_compilation.cc:346] ptxas warning : Registers are spilled to local memory in function 'gemm_fusion_dot_22', 16 bytes spill stores, 16 bytes spill loads\n", ""},
		// The alarm times constant folding too: that is no compilation.
		{"constant folding", "E0101 00:00:01.000000 1 slow_operation_alarm.cc:140] The operation took 8.2s\n" +
			"Constant folding an instruction is taking > 1s:\n", ""},
	} {
		if g := got(t, c.log); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, g, c.want)
		}
	}
}

// ptxas lines are read (nothing to count), not unread.
func TestPtxasIsRead(t *testing.T) {
	_, st := scantest.Scan(t, "2023-12-08 15:24:09.030037: W external/xla/xla/stream_executor/gpu/asm_compiler.cc:231] Falling back to the CUDA driver for PTX compilation; ptxas does not support CC 8.9\n"+
		"2025-03-11 22:49:11.254444: I external/xla/xla/stream_executor/cuda/subprocess_compilation.cc:346] ptxas warning : Registers are spilled to local memory in function 'gemm_fusion_dot_22', 16 bytes spill stores, 16 bytes spill loads\n", logscan.Options{})
	if st.Unread != 0 {
		t.Errorf("%+v", st.UnreadLines)
	}
	_, st = scantest.Scan(t, "2023-06-12 10:31:02.114318: E external/xla/xla/service/gpu/nvptx_compiler.cc:610] PTX compilation of module jit_f.3 failed after 2 attempts\n", logscan.Options{})
	if st.Unread != 1 {
		t.Errorf("an XLA compile line recomp does not know is not unread: %+v", st)
	}
}
