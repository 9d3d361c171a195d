package tf

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/recomp/recomp/hlo"
	"github.com/recomp/recomp/internal/lazyre"
)

// A Keras step is a program, and a family, of its own: by its number of inputs when the device
// compiler logs them, else by its traced function.
func TestKerasProgram(t *testing.T) {
	for _, c := range []struct{ family, module, signature, want string }{
		{"__inference_one_step_on_data_N", "__inference_one_step_on_data_272", "num_inputs=10", "__inference_one_step_on_data_N [num_inputs=10]"},
		{"__inference_one_step_on_data_N", "__inference_one_step_on_data_272", "", "__inference_one_step_on_data_N [inference_one_step_on_data_272]"},
		{"__inference_multi_step_on_iterator_N", "__inference_multi_step_on_iterator_9", "num_inputs=3", "__inference_multi_step_on_iterator_N [num_inputs=3]"},
	} {
		if got, ok := program(c.family, c.module, c.signature); !ok || got != c.want {
			t.Errorf("program(%q, %q, %q) = %q, %v; want %q", c.family, c.module, c.signature, got, ok, c.want)
		}
		if k, ok := functionKey(c.want); !ok || k != "tf function "+c.family[len("__inference_"):len(c.family)-2] {
			t.Errorf("functionKey(%q) = %q, %v", c.want, k, ok)
		}
	}
	if _, ok := program("__inference_train_step_N", "__inference_train_step_4", "num_inputs=3"); ok {
		t.Error("a tf.function of its own is named a Keras step")
	}
	for module, want := range map[string]string{
		"__inference_one_step_on_data_272":                         "inference_one_step_on_data_272",
		"a_inference_one_step_on_data_272__":                       "inference_one_step_on_data_272",
		"a_inference_train_step_10__XlaMustCompile_true_config_12": "inference_train_step_10",
	} {
		if got, ok := functionID(module); !ok || got != want {
			t.Errorf("functionID(%q) = %q, %v; want %q", module, got, ok, want)
		}
	}
	if _, ok := functionID("cluster_3__XlaCompiledKernel_true__.2"); ok {
		t.Error("a cluster has a traced function")
	}
}

// The role of a Keras step is read from its graph, on Keras 3's real modules: the train step
// aliases its weights to its results, the validation (test) step returns its loss and metrics
// only, the predict step returns the batch's outputs.
func TestKerasRole(t *testing.T) {
	runs := "../../testdata/runs/tf-2.21/"
	for file, want := range map[string]string{
		"keras-fit-validation/dump/module_0060.a_inference_one_step_on_data_272__.6.before_optimizations.txt":                                                                     "train step",
		"keras-fit-validation/dump/module_0121.a_inference_one_step_on_data_272__.6.before_optimizations.txt":                                                                     "train step",
		"keras-fit-validation/dump/module_0122.a_inference_one_step_on_data_436__.4.before_optimizations.txt":                                                                     "test step",
		"keras-fit-validation/dump/module_0123.a_inference_one_step_on_data_436__.4.before_optimizations.txt":                                                                     "test step",
		"keras-predict-shapes/dump/module_0000.a_inference_one_step_on_data_132__.2.before_optimizations.txt":                                                                     "predict step",
		"structure/dump/module_0006.a_inference_forward_19__XlaMustCompile_true_config_proto_13561319589895757934_executor_type_11160318154034397263_.2.before_optimizations.txt": "",
	} {
		src, err := os.ReadFile(runs + file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := hlo.Parse(file, src)
		if err != nil {
			t.Fatal(err)
		}
		if got := kerasRole(family(m.Name[:len(m.Name)-len(filepath.Ext(m.Name))]), m); got != want {
			t.Errorf("%s: role %q, want %q", filepath.Base(file), got, want)
		}
	}
}

// The info lines TF_CPP_MIN_LOG_LEVEL=0 brings are recognised in every form the real runs print
// them (absl's epoch-seconds form before it is set up included), and TF's warnings and errors,
// which the user sees without recomp too, are not.
func TestInfoLinesAreRecognised(t *testing.T) {
	var prints *lazyre.Regexp
	for _, s := range Framework.Settings {
		if s.Name == "TF_CPP_MIN_LOG_LEVEL" {
			prints = s.Prints
		}
	}
	logs, _ := filepath.Glob("../../testdata/runs/tf-2.21/*/run.log")
	if len(logs) == 0 {
		t.Fatal("no TF runs")
	}
	infoLine := regexp.MustCompile(`^I\d{4} |^WARNING: All log messages before absl|^To enable the following instructions`)
	otherLine := regexp.MustCompile(`^[WEF]\d{4} `)
	infos, others := 0, 0
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			switch {
			case infoLine.MatchString(line):
				infos++
				if !prints.MatchString(line) {
					t.Errorf("%s:%d: an info line is not recognised: %q", p, n+1, line)
				}
			case otherLine.MatchString(line):
				others++
				if prints.MatchString(line) {
					t.Errorf("%s:%d: a warning is taken for an info line: %q", p, n+1, line)
				}
			}
		}
	}
	if infos < 100 || others == 0 {
		t.Errorf("%d info lines and %d warnings in the TF runs: too few to tell", infos, others)
	}
	for _, line := range []string{
		"I0000 00:00:1795514318.913671   12746 cpu_feature_guard.cc:227] This TensorFlow binary is optimized",
		"I1124 10:02:03.123456 140213 device_compilation_profiler.cc:102] Compiled cluster_0 1 times",
		"2023-06-01 12:00:00.123456: I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary",
	} {
		if !prints.MatchString(line) {
			t.Errorf("not recognised: %q", line)
		}
	}
}

// Under jit_compile an input_signature with None spares the tracing, not the compiling: the
// advice for a varying shape pads to fixed sizes, in TF's own words.
func TestShapeAdviceUnderXLA(t *testing.T) {
	adv := Framework.Advice
	for _, a := range []string{adv.Causes["input_shape"], adv.Retrace} {
		if !strings.Contains(a, "padded_shapes") || !strings.Contains(a, "bucket_by_sequence_length") || strings.Contains(a, "jax") {
			t.Errorf("advice %q", a)
		}
	}
	if strings.HasPrefix(adv.Causes["input_shape"], "give the tf.function an input_signature") {
		t.Errorf("a varying shape is told an input_signature: %q", adv.Causes["input_shape"])
	}
}

// A Python list of ids of several lengths is padded to fixed lengths, not passed as a tensor of
// each length (one XLA compilation per length still); scalars and lists of one length keep the
// scalar advice.
func TestSequenceAdvice(t *testing.T) {
	for _, c := range []struct {
		values []string
		list   bool
	}{
		{[]string{"[3, 1, 4]", "[1, 5, 9, 2, 6]"}, true},
		{[]string{"(3, 1)", "(2,)"}, true},
		{[]string{"[3, 1]", "[2, 7]"}, false}, // one length: a tensor is one compilation
		{[]string{"2.0", "1.0"}, false},
		{[]string{"['a']", "['b', 'c']"}, false},
	} {
		adv := sequenceAdvice("ids", c.values)
		if got := strings.Contains(adv, "fixed lengths") && strings.Contains(adv, "input_signature"); got != c.list {
			t.Errorf("%v: %q", c.values, adv)
		}
	}
}
