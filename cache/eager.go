package cache

import (
	"strings"

	"github.com/recomp/recomp/logscan"
)

// isEagerOp reports whether a compilation is of a framework's one-op program: JAX compiles
// every primitive applied outside jit (jnp.zeros, astype, a random draw during initialisation)
// as a tiny program named after the primitive (jit_convert_element_type, jit_broadcast_in_dim)
// or after the library helper that wraps it (jit__normal, jit__uniform). Programs of one such
// name differ in their arguments: compiling one again is not a recompilation of a step.
func isEagerOp(p logscan.Producer, family, signature string) bool {
	if p != logscan.ProducerJAX {
		return false
	}
	name, ok := strings.CutPrefix(family, "jit_")
	if !ok {
		return false
	}
	return jaxPrimitives[name]
}

// jaxPrimitives are the names of JAX's primitives (jax/_src/lax, jax/_src/prng).
var jaxPrimitives = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`abs acos acosh add after_all and argmax argmin asin asinh atan atan2 atanh
		bitcast_convert_type broadcast_in_dim cbrt ceil clamp clz complex concatenate conj conv_general_dilated
		convert_element_type copy copy_p cos cosh cumlogsumexp cummax cummin cumprod cumsum device_put digamma div
		dot_general dynamic_slice dynamic_update_slice eq erf erf_inv erfc exp exp2 expm1 floor gather ge gt
		igamma imag integer_pow iota is_finite le lgamma log log1p logistic lt max min mul ne neg nextafter not
		or pad population_count pow real reduce_and reduce_max reduce_min reduce_or reduce_precision reduce_prod
		reduce_sum reduce_xor rem reshape rev rng_bit_generator rng_uniform round rsqrt scatter scatter-add
		scatter_add scatter_mul scatter_min scatter_max select_n shift_left shift_right_arithmetic
		shift_right_logical sign sin sinh slice sort split sqrt square squeeze sub tan tanh top_k transpose xor
		random_bits random_seed random_wrap random_unwrap random_split random_fold_in threefry2x32
		stop_gradient select_and_scatter_add reduce_window_sum argsort
		_normal _uniform _truncated_normal _bernoulli _randint _gamma _beta _categorical _choice _permutation
		_split _fold_in _random_bits _key_data _threefry_split _threefry_fold_in _threefry_random_bits`) {
		jaxPrimitives[n] = true
	}
}
