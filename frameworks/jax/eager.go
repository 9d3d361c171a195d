package jax

import (
	"strings"
	"sync"
)

// eager reports whether a compilation is of one of JAX's one-op programs: JAX compiles every
// primitive or jax.numpy function applied outside jit (jnp.zeros, astype, a random draw during
// initialisation) as a small program named after it (jit_convert_element_type, jit_multiply)
// or after the private helper JAX jits to implement it (jit__normal, jit__reduce_sum). Programs
// of one such name differ in their arguments: compiling one again is not a recompilation of a
// step. The evidence is JAX's own: a name JAX gives its programs (its primitives, the functions
// of its public modules and the private helpers it jits, read from JAX's source), never a
// pattern a user's function can match too (a user's _train_step is jit__train_step, and its
// recompilations must reach the gate). A function JAX explained as the program's own is never
// one (the ledger checks that).
func eager(family, _ string) bool {
	name, ok := strings.CutPrefix(family, "jit_")
	if !ok {
		return false
	}
	name = strings.TrimRight(name, "_")
	if userLike()[name] {
		return false
	}
	return jaxNames()[name] || jaxHelpers()[name]
}

// wordSet is the set of the words of s. The sets below are made on first use, not when the
// binary starts (a fifth of a millisecond of every run of it).
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}

// userLike are names in jaxNames that users give their own jitted functions too (a step
// function f, a solver solve, a scan body scan). Without JAX's cache-miss explanations the log
// cannot tell the two apart, and taking a user's program for an eager one would hide its
// recompilations from the gate: these count as the user's. An eager jnp.split compiled twice is
// then reported as recompiled, which is the lesser error.
var userLike = sync.OnceValue(func() map[string]bool {
	return wordSet(`f t cond scan map get put load key split solve norm save savez run_state
		trace switch while while_loop fori_loop jit block shape size tie vectorize`)
})

// jaxHelpers are the private functions JAX jits to implement an eager operation (jnp.mean is
// jit__mean, jax.random.normal jit__normal): every function of jax 0.4.38 and 0.12 whose
// definition is decorated with jit or that is passed to jit, found with Python's ast, less the
// names too plain to be JAX's alone (_f, _t, _run, _wrapped, _solve, ...; _identity_fn is kept: multihost_utils compiles it), which count as the
// user's.
var jaxHelpers = sync.OnceValue(func() map[string]bool {
	return wordSet(`
		_algorithm_11_1_1 _argmax _argmin _average _ball _bernoulli _beta _binom _binomial _binomial_inversion
		_broadcast_arrays _btrs _calc_P_Q _call_vectorized _cauchy _chisquare _cho_solve _cholesky
		_complex_loggamma_scipy _conv _csr_to_coo _cumsum_with_promotion _device_put_reshard _diag _dirichlet
		_double_sided_maxwell _eigh _eigh_work _einsum _erfcinv_impl _expn _expn_jvp _exponential _flip _gamma
		_gamma_approx _gaussian_kernel_eval _gen_associated_legendre _gen_derivatives _generalized_normal
		_geometric _geomspace _gumbel _horner _hyp1f1_a_derivative _hyp1f1_b_derivative _hyp1f1_x_derivative _identity_fn _identity_fn
		_hyp2f1_a_derivative _hyp2f1_b_derivative _hyp2f1_c_derivative _hyp2f1_x_derivative _in1d _interp
		_intersect1d_size _intersect1d_sorted_mask _laplace _lgamma_neg_reflection _lgamma_neg_root
		_lgamma_pos_large _lgamma_pos_small _linspace _lobpcg_standard_callable _lobpcg_standard_matrix
		_log_f32 _logistic _lognormal _logspace _lu _lu_solve _map_coordinates _maxwell _mean _moveaxis
		_multi_slice _multivariate_normal _nanargmax _nanargmin _normal _normal_real _odeint_wrapper _one_hot
		_orthogonal _pad _pareto _philox2x32_fold_in _philox2x32_random_bits _philox2x32_seed _philox2x32_split
		_philox4x32_fold_in _philox4x32_random_bits _philox4x32_seed _philox4x32_split _piecewise _pinv
		_poisson _poisson_approx _poisson_knuth _poisson_rejection _polar_2d _power _ptp _qr _rademacher
		_randint _rayleigh _reduce_all _reduce_any _reduce_bitwise_and _reduce_bitwise_or _reduce_bitwise_xor
		_reduce_logical_and _reduce_logical_or _reduce_logical_xor _reduce_max _reduce_min _reduce_minmax
		_reduce_prod _reduce_sum _rel_entr _rel_entr_jvp _resize _rfft_transpose _roll_dynamic _roll_static
		_roots_no_zeros _roots_with_zeros _rsf2csf_2d _scaled_matmul _schur _searchsorted_compare_all_impl
		_searchsorted_scan_impl _searchsorted_sort_impl _setxor1d_size _shuffle _solve_sylvester_2d
		_solve_triangular _sph_harm _splash_attention _sqrtm _sqrtm_triu _squaring _squeeze _std _svd
		_svd_tall_and_square_input _take _threefry4x32_fold_in _threefry4x32_random_bits _threefry4x32_seed
		_threefry4x32_split _threefry_fold_in _threefry_random_bits_original _threefry_seed _threefry_split
		_threefry_split_foldlike _threefry_split_original _triangular _truncated_normal _uniform
		_unique_sorted_mask _unstack _var _wald _weibull_min _where
	`)
})

// jaxNames are the names JAX gives the programs it compiles for eager operations: its
// primitives (jax/_src/lax, prng) and the functions of jax.numpy, jax.lax, jax.random, jax.nn,
// jax.numpy.linalg and jax.numpy.fft, which JAX 0.4.30+ runs eagerly as small jitted programs
// (jit_multiply, jit_concatenate). Taken from jax 0.12 with dir() and the registered primitives.
var jaxNames = sync.OnceValue(func() map[string]bool {
	return wordSet(`
		abs absolute accum_grad_in_ref acos acosh add add_any addupdate after_all all all_gather all_gather_done
		all_gather_invariant all_gather_reduced all_gather_reduced_start all_gather_start all_to_all
		all_to_all_done all_to_all_start allclose amax amin and angle any append apply_along_axis apply_over_axes
		approx_max_k approx_min_k approx_top_k arange arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax
		argmin argpartition argsort argwhere around array array_equal array_equiv array_repr array_split array_str
		asarray asin asinh associative_scan astype atan atan2 atanh atleast_1d atleast_2d atleast_3d average
		axis_index axis_size ball bartlett batch_matmul bernoulli bessel_i0e bessel_i1e beta betainc bfloat16
		bincount binomial bitcast_convert_type bits bitwise_and bitwise_count bitwise_invert bitwise_left_shift
		bitwise_not bitwise_or bitwise_right_shift bitwise_xor blackman block bool bool_ broadcast broadcast_arrays
		broadcast_in_dim broadcast_like broadcast_shapes broadcast_to broadcast_to_rank broadcasted_iota
		call_exported call_hi_primitive call_hi_primitive_linearized can_cast categorical cauchy cbrt cdouble ceil
		celu character chisquare choice cholesky cholesky_update choose clamp clip clone clz collapse column_stack
		complex complex128 complex64 complex_ complexfloating composite compress concat concatenate cond conj
		conjugate conv conv_dimension_numbers conv_general_dilated conv_general_dilated_local
		conv_general_dilated_patches conv_general_permutations conv_general_shape_tuple conv_shape_tuple
		conv_transpose conv_transpose_shape_tuple conv_with_general_padding convert_element_type convolve copy
		copysign corrcoef correlate cos cosh count_nonzero cov create_linear create_token cross csingle
		cudnn_fusion cumlogsumexp cummax cummin cumprod cumsum cumulative_prod cumulative_sum custom_jvp_call
		custom_jvp_call_jaxpr custom_lin custom_linear_solve custom_partitioning custom_root custom_vjp_call
		custom_vmap_call dce_sink debug_callback debug_print deg2rad degrees delete det device_put diag
		diag_indices diag_indices_from diagflat diagonal diff digamma digitize dim_as_value dimension_size
		dirichlet div divide divmod dot dot_general dot_product_attention dot_product_attention_bwd
		dot_product_attention_bwd_wrapper dot_product_attention_fp8_bwd dot_product_attention_fp8_bwd_wrapper
		dot_product_attention_fp8_fwd dot_product_attention_fp8_fwd_wrapper dot_product_attention_fwd
		dot_product_attention_fwd_wrapper double double_sided_maxwell dsplit dstack dtype dynamic_index_in_dim
		dynamic_slice dynamic_slice_in_dim dynamic_update_index_in_dim dynamic_update_slice
		dynamic_update_slice_in_dim ediff1d eig eigh eigvals eigvalsh einsum einsum_path elu empty empty2
		empty_like empty_ref eq eq_to equal erf erf_inv erfc eval_jaxpr exp exp2 expand_dims expm1 exponential
		extract eye f fabs ffi_call fft fft2 fftfreq fftn fftshift fill_diagonal finfo flatnonzero flexible flip
		fliplr flipud float16 float32 float4_e2m1fn float64 float6_e2m3fn float6_e3m2fn float8_e3m4 float8_e4m3
		float8_e4m3b11fnuz float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu float_
		float_power floating floor floor_divide fmax fmin fmod fold_in fori_loop free_ref freeze frexp from_dlpack
		from_edtype frombuffer fromfile fromfunction fromiter frompyfunc fromstring full full_like gamma gather gcd
		ge gelu generalized_normal generic geometric geomspace geqp3 geqrf get get_printoptions
		get_scaled_dot_general_config glu gradient greater greater_equal gt gumbel hamming hanning hard_sigmoid
		hard_silu hard_swish hard_tanh heaviside hessenberg hfft histogram histogram2d histogram_bin_edges
		histogramdd householder_product hsplit hstack hypot i0 identity ifft ifft2 ifftn ifftshift igamma
		igamma_grad_a igammac ihfft iinfo imag index_in_dim index_take indices inexact inner insert
		inspect_sharding int1 int16 int2 int32 int4 int64 int8 int_ integer integer_pow interp intersect1d inv
		invert io_callback iota iota_2x32_shape irfft irfft2 irfftn is_finite isclose iscomplex iscomplexobj
		isdtype isfinite isin isinf isnan isneginf isposinf isreal isrealobj isscalar issubdtype iterable ix_ jit
		kaiser key key_data key_dtype key_impl kron laplace layout_constraint lcm ldexp le le_to leaky_relu
		left_shift less less_equal lexsort lgamma linear_call linspace load log log10 log1mexp log1p log2
		log_sigmoid log_softmax logaddexp logaddexp2 loggamma logical_and logical_not logical_or logical_xor
		logistic logmeanexp lognormal logspace logsumexp lstsq lt lt_to lu lu_pivots_to_permutation map
		mask_indices matmul matrix_norm matrix_power matrix_rank matrix_transpose matvec max maximum maxwell mean
		median meshgrid min minimum minmax mish mod modf moveaxis mul mulhi multi_dot multinomial multiply
		multivariate_normal name nan_to_num nanargmax nanargmin nancumprod nancumsum nanmax nanmean nanmedian
		nanmin nanpercentile nanprod nanquantile nanstd nansum nanvar ndarray ndim ne neg negative new_ref
		nextafter nonzero norm normal not not_equal number object_ one_hot one_minus_square ones ones_like
		optimization_barrier or ormqr orthogonal outer packbits pad padtype_to_pads pareto partition pbroadcast
		pbroadcast_dynamic pcast percentile permutation permute_dims philox2x32 philox4x32 piecewise pin pinv place
		platform_dependent platform_index pmax pmean pmin poisson poly polyadd polyder polydiv polyfit polygamma
		polyint polymul polynomial polysub polyval population_count positive pow power ppermute ppermute_done
		ppermute_start precv preduced printoptions prod promote_types psend pshuffle psum psum_done psum_invariant
		psum_invariant_start psum_scatter psum_scatter_start pswapaxes ptp pure_callback put put_along_axis pvary
		qr quantile rad2deg rademacher radians ragged_all_to_all ragged_dot ragged_dot_general randint random_bits
		random_clone random_fold_in random_gamma random_gamma_grad random_seed random_split random_unwrap
		random_wrap ravel ravel_multi_index rayleigh real reciprocal reduce reduce_and reduce_max reduce_min
		reduce_or reduce_precision reduce_prod reduce_scatter reduce_scatter_done reduce_scatter_start reduce_sum
		reduce_window reduce_window_max reduce_window_min reduce_window_shape_tuple reduce_window_sum reduce_xor
		reduced_vary_cast regularized_incomplete_beta relayout relu relu6 rem remainder remat2 remat_opt repeat
		reshape reshard resize result_type rev rfft rfft2 rfftfreq rfftn right_shift rint rng_bit_generator
		rng_uniform roll rollaxis roots rot90 round rsqrt run_state save savez scaled_dot scaled_dot_general
		scaled_matmul scaled_matmul_wrapper scan scatter scatter-add scatter-max scatter-min scatter-mul
		scatter-sub scatter_add scatter_apply scatter_max scatter_min scatter_mul scatter_sub schur searchsorted
		select select_and_gather_add select_and_scatter select_and_scatter_add select_n selu set_printoptions
		setdiff1d setxor1d shape shape_as_value shape_assertion shard_map sharding_constraint shift_left
		shift_right_arithmetic shift_right_logical sigmoid sign signbit signedinteger silu sin sinc single sinh
		size slice slice_in_dim slogdet soft_sign softmax softplus solve sort sort_complex sort_key_val spacing
		sparse_plus sparse_sigmoid split sqrt square squareplus squeeze stack stage standardize std stop_gradient
		sub subtract sum svd svdvals swap swapaxes swish switch symmetric_product t take take_along_axis tan tanh
		tensordot tensorinv tensorsolve threefry2x32 threefry4x32 tie tile to_edtype top_k trace transpose
		trapezoid tri triangular triangular_solve tridiagonal tridiagonal_solve tril tril_indices tril_indices_from
		trim_zeros triu triu_indices triu_indices_from true_divide trunc truncated_normal ufunc uint uint1 uint16
		uint2 uint32 uint4 uint64 uint8 uniform union1d unique unique_all unique_counts unique_inverse
		unique_values unpackbits unpin unravel_index unreachable unreduced_pmax unreduced_pmin unreduced_psum
		unreduced_reduce_scatter unsignedinteger unstack unwrap vander var vary_unreduced_cast vdot vecdot vecmat
		vector_norm vectorize vsplit vstack wald weibull_min where while while_loop with_memory_space_constraint
		with_sharding_constraint wrap_key_data xor zeros zeros_like zeta`)
})
