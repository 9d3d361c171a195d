package hlo

import "testing"

func TestFamily(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"cluster_35__XlaCompiledKernel_true__XlaNumConstantArgs_2__XlaNumResourceArgs_0_.56", "cluster_35__XlaCompiledKernel_true__XlaNumConstantArgs_2__XlaNumResourceArgs_0_"},
		{"a_inference_train_function_18311__XlaMustCompile_true_config_proto___n_007_n_0...02_001_000__executor_type____.19234",
			"a_inference_train_function_N__XlaMustCompile_true_config_proto___n_007_n_0...02_001_000__executor_type____"},
		{"a_inference_train_function_640__XlaMustCompile_true_config_proto___n_007_n_0...02_001_000__executor_type____.412",
			"a_inference_train_function_N__XlaMustCompile_true_config_proto___n_007_n_0...02_001_000__executor_type____"},
		{"__inference_step_77", "__inference_step_N"},
		{"jit_ipu_intor1e.0", "jit_ipu_intor1e"},
		{"SyncTensorsGraph.38", "SyncTensorsGraph"},
		{"jit_f", "jit_f"},
		{"main.22_spmd", "main.22_spmd"},
		{".5", ".5"},
		{"", ""},
	} {
		if got := Family(c.in); got != c.want {
			t.Errorf("Family(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFunctionKey(t *testing.T) {
	log := Family("__inference_train_step_10")
	dump := Family("a_inference_train_step_10__XlaMustCompile_true_config_proto_13561319589895757934_executor_type_11160318154034397263_.2")
	if FunctionKey(log) != FunctionKey(dump) || FunctionKey(log) != "tf function train_step" {
		t.Errorf("%q → %q, %q → %q", log, FunctionKey(log), dump, FunctionKey(dump))
	}
	if FunctionKey("jit_step") != "jit_step" || FunctionKey(Family("a_inference_test_step_5__")) == FunctionKey(Family("a_inference_train_step_5__")) {
		t.Error("different functions share a key")
	}
}
