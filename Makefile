# brine: a plain Makefile with explicit source lists.
#
#   make              build/bin/brine, build/lib/brine/{libbrine_rt.a,include/,stdlib/}
#   make check        unit tests, golden tests (dev and release), hostile inputs, CLI, fmt, man page lint,
#                     world programs under mpirun
#   make install      PREFIX=/usr/local DESTDIR=  (make uninstall removes what it put)
#   make deps         what building needs (Debian packages); make deps-test: and what make check needs
#
# The tree under build/ mirrors the installed one, so build/bin/brine finds
# its runtime and stdlib the same way an installed brine does: ../lib/brine.

CC      ?= cc
PREFIX  ?= /usr/local
RE2C    ?= re2c
BISON   ?= bison
# the CPUs: the check's own builds and its independent table checks run this many at a time
NPROC  := $(shell nproc 2>/dev/null || echo 2)

WARN     = -Wall -Wextra -Wswitch -Wno-unused-parameter
CFLAGS  ?= -O2 -g
# No fast-math, no FMA contraction (-ffp-contract=off): the same bits in every build.
BASEFLAGS = -std=gnu11 -ffp-contract=off $(WARN)
B = build

COMPILER_SRC = compiler/arena.c compiler/util.c compiler/diag.c compiler/ast.c compiler/types.c \
               compiler/load.c compiler/check.c compiler/check_diag.c compiler/check_stmt.c compiler/check_builtins.c compiler/check_values.c compiler/check_fnvals.c compiler/check_fold.c compiler/check_scan.c compiler/lower.c compiler/ir.c compiler/ir_walk.c compiler/ir_dump.c compiler/opt.c compiler/opt_consts.c compiler/opt_iters.c compiler/opt_inline.c compiler/opt_fnvals.c compiler/opt_unique.c compiler/opt_loops.c compiler/opt_growth.c compiler/opt_range.c compiler/opt_relations.c compiler/opt_interchange.c compiler/opt_borrow.c compiler/opt_scalars.c compiler/opt_counted.c compiler/opt_shortfor.c compiler/opt_extremes.c compiler/opt_lazycopy.c compiler/opt_accum.c compiler/opt_comploop.c compiler/opt_fill.c compiler/opt_scanloop.c compiler/opt_cover.c compiler/opt_fuse.c compiler/opt_split.c compiler/opt_fission.c compiler/opt_expand.c compiler/opt_parfor.c compiler/opt_move.c compiler/opt_fuseloops.c compiler/opt_scratch.c compiler/opt_carry.c compiler/opt_hoist.c compiler/opt_version.c compiler/opt_cursor.c compiler/opt_prefetch.c compiler/opt_records.c compiler/opt_bins.c \
               compiler/ctext.c compiler/emit_base.c compiler/emit_c.c compiler/emit_loops.c compiler/emit_prefetch.c compiler/emit_guards.c compiler/emit_maps.c compiler/emit_program.c compiler/emit_builtin.c compiler/emit_par.c compiler/emit_minmax.c compiler/emit_listcomp.c compiler/emit_scan.c compiler/emit_keyref.c compiler/emit_fnval.c compiler/emit_debug.c compiler/emit_quiet.c compiler/emit_lane.c compiler/emit_seqlanes.c compiler/emit_fuse.c compiler/emit_jam.c compiler/emit_rows.c \
               compiler/paths.c compiler/outputs.c compiler/backend.c compiler/testrun.c compiler/fmt.c compiler/cli.c compiler/tree_draw.c compiler/main.c \
               compiler/json.c compiler/lsp.c compiler/lsp_index.c compiler/lsp_query.c compiler/completions.c
COMPILER_GEN = $(B)/gen/lexer.c $(B)/gen/parser.c
COMPILER_HDR = compiler/brine.h compiler/check.h compiler/ir.h compiler/driver.h compiler/cli.h compiler/ctext.h compiler/emit_c.h compiler/json.h compiler/lsp.h

RUNTIME_SRC = runtime/panic.c runtime/frames.c runtime/arith.c runtime/value.c runtime/format.c runtime/pool.c \
              runtime/print.c runtime/os.c runtime/math.c runtime/math_fma.c runtime/math_lanes.c runtime/math_lanes_avx2.c runtime/math_lanes_avx512.c runtime/reduce.c runtime/scan.c runtime/keyed.c runtime/keyfree.c runtime/text.c runtime/sort.c runtime/world.c runtime/own.c runtime/iter.c
RUNTIME_HDR = runtime/brine_rt.h runtime/brine_math.h $(wildcard runtime/crmath/*.h) runtime/rt_internal.h runtime/reduce_shape.h runtime/wrap_ovf.h

STDLIB = stdlib/math.br stdlib/random.br

COMPILER_OBJ = $(COMPILER_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/lexer.o $(B)/obj/gen/parser.o
RUNTIME_OBJ  = $(RUNTIME_SRC:%.c=$(B)/obj/%.o)

# GPU offload (docs/gpu.md): the kernel generator in the compiler; the GPU
# runtime in libbrine_rt.a (CUDA and NVRTC are dlopen'ed, never linked).
COMPILER_SRC += compiler/emit_cuda.c
COMPILER_HDR += compiler/emit_cuda.h
# The kernel text every module starts and ends with, embedded into the
# compiler as strings (tools/embed.c: reduce_shape.h's #defines in place of
# the prelude's #include), so gcc, the shim's C compiler and NVRTC read one
# text although NVRTC has no include path.
KERNEL_TEXT = runtime-gpu/kernel_prelude.h runtime-gpu/kernel_tree.h runtime-gpu/kernel_scan.h \
              runtime-gpu/kernel_keyed.h
COMPILER_OBJ += $(B)/obj/gen/kernel_prelude.o
GPU_RT_SRC = runtime-gpu/gpu.c runtime-gpu/gpu_util.c runtime-gpu/cuda.c runtime-gpu/shim.c
GPU_RT_HDR = runtime-gpu/gpu_internal.h
RUNTIME_OBJ += $(GPU_RT_SRC:%.c=$(B)/obj/%.o)

LIBDIR  = $(B)/lib/brine
BRINE   = $(B)/bin/brine
RTLIB   = $(LIBDIR)/libbrine_rt.a

all: $(BRINE) $(RTLIB) $(LIBDIR)/include/brine_rt.h $(LIBDIR)/include/brine_math.h \
     $(LIBDIR)/include/reduce_shape.h $(LIBDIR)/include/wrap_ovf.h stdlib-copy

$(B)/gen/lexer.c: compiler/lexer.re $(B)/gen/parser.h
	@mkdir -p $(@D)
	$(RE2C) -W --no-generation-date --no-version -c -o $@ $<

$(B)/gen/parser.c $(B)/gen/parser.h: compiler/parser.y
	@mkdir -p $(B)/gen
	$(BISON) -Wall -Werror --header=$(B)/gen/parser.h -o $(B)/gen/parser.c $<

$(B)/tools/embed: tools/embed.c
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -o $@ $<

$(B)/gen/kernel_prelude.c: $(B)/tools/embed $(KERNEL_TEXT) runtime/reduce_shape.h runtime/wrap_ovf.h $(wildcard runtime/crmath/*.h)
	@mkdir -p $(@D)
	$(B)/tools/embed brine_kernel_prelude runtime-gpu/kernel_prelude.h \
	                 brine_kernel_tree runtime-gpu/kernel_tree.h \
	                 brine_kernel_scan runtime-gpu/kernel_scan.h \
	                 brine_kernel_keyed runtime-gpu/kernel_keyed.h > $@.tmp && mv $@.tmp $@

# brine -V: the commit brine is built from. Written on every make, replaced
# only when its text changes (a new HEAD), so only cli.o is rebuilt then.
$(B)/gen/version.h: FORCE
	@mkdir -p $(@D)
	@sh tools/version.sh . > $@.tmp && { cmp -s $@.tmp $@ || mv $@.tmp $@; }; rm -f $@.tmp
$(B)/obj/compiler/cli.o: $(B)/gen/version.h
FORCE:

# fmt.c reads the token numbers
$(B)/obj/compiler/fmt.o: $(B)/gen/parser.h

# Generated files: warnings down (they are not ours to fix).
$(B)/obj/gen/%.o: $(B)/gen/%.c $(B)/gen/parser.h $(COMPILER_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -Wno-unused-function -Wno-sign-compare -Icompiler -I$(B)/gen -Iruntime -c -o $@ $<

$(B)/obj/compiler/%.o: compiler/%.c $(COMPILER_HDR) $(B)/gen/parser.h runtime/brine_rt.h runtime/brine_math.h runtime/reduce_shape.h runtime/wrap_ovf.h
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -Icompiler -I$(B)/gen -Iruntime -c -o $@ $<

# -fPIC: `brine run` links the archive into memory with libtcc, which cannot
# reach libc's stdout/stderr through the PC32 relocations of gcc's default PIE
# code (they assume copy relocations); GOT-relative ones work everywhere.
$(B)/obj/runtime/%.o: runtime/%.c $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -fno-fast-math -fPIC -Iruntime -c -o $@ $<

# The runtime files built with AVX go through assembly: gcc 12, once AVX is
# on, copies a double from register to register as `vmovsd %xmmA, %xmmA,
# %xmmB`, a merge that executes (a cycle on the value's path), where
# `vmovapd %xmmA, %xmmB` writes the same 128 bits and is done at register
# renaming (compiler/backend.c, rewrite_copies, does the same to --cpu=native
# programs and says more). brt_fma_cos: 5-8% faster with it; no bit changes.
AVX_COPIES = sed -E 's/^\tvmovsd\t%xmm([0-9]|1[0-5]), %xmm\1, %xmm([0-9]|1[0-5])$$/\tvmovapd\t%xmm\1, %xmm\2/'
AVX_ASSEMBLE = $(AVX_COPIES) $@.s > $@.fixed.s && $(CC) -c -o $@ $@.fixed.s && rm -f $@.s $@.fixed.s

# math_fma.c: brine's math again, with FMA instructions, on x86-64 (math.c
# picks it at run time when the processor has FMA; the same bits either way).
MATH_FMA_FLAGS = $(if $(findstring x86_64,$(shell $(CC) -dumpmachine)),-mfma)
$(B)/obj/runtime/math_fma.o: runtime/math_fma.c $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) $(MATH_FMA_FLAGS) -fno-fast-math -fPIC -Iruntime -S -o $@.s $<
	$(AVX_ASSEMBLE)

# math_lanes_avx2.c: the math lanes (crmath/lanes.h) for x86-64 processors
# with AVX2 and FMA, vectorized (-O3; -fno-trapping-math changes no value:
# math_lanes_avx2.c says why; after -fno-fast-math, which would turn it back
# off); math_lanes.c picks it at run time.
MATH_LANES_FLAGS = $(if $(findstring x86_64,$(shell $(CC) -dumpmachine)),-O3 -mavx2 -mfma -fno-trapping-math)
$(B)/obj/runtime/math_lanes_avx2.o: runtime/math_lanes_avx2.c $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -fno-fast-math $(MATH_LANES_FLAGS) -fPIC -Iruntime -S -o $@.s $<
	$(AVX_ASSEMBLE)

# math_lanes_avx512.c: the same for processors with AVX-512 too (math_lanes.c
# picks it first).
MATH_LANES512_FLAGS = $(if $(findstring x86_64,$(shell $(CC) -dumpmachine)),-O3 -mavx512f -mavx512dq -mavx512bw -mavx512vl -mavx2 -mfma -fno-trapping-math)
$(B)/obj/runtime/math_lanes_avx512.o: runtime/math_lanes_avx512.c $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -fno-fast-math $(MATH_LANES512_FLAGS) -fPIC -Iruntime -S -o $@.s $<
	$(AVX_ASSEMBLE)

$(B)/obj/runtime-gpu/%.o: runtime-gpu/%.c $(RUNTIME_HDR) $(GPU_RT_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -fno-fast-math -fPIC -Iruntime -c -o $@ $<

$(RTLIB): $(RUNTIME_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIBDIR)/include/%.h: runtime/%.h
	@mkdir -p $(@D)
	cp $< $@

stdlib-copy: $(STDLIB)
	@mkdir -p $(LIBDIR)/stdlib
	cp $(STDLIB) $(LIBDIR)/stdlib/

$(BRINE): $(COMPILER_OBJ) $(RTLIB)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $(COMPILER_OBJ) $(RTLIB) -ltcc -ldl -lm -lpthread

# ---- tests ------------------------------------------------------------------

UNIT_SRC = $(wildcard tests/unit/*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

$(B)/tests/%: tests/unit/%.c $(RTLIB) $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -Iruntime -o $@ $< $(RTLIB) -lcriterion -lm -lpthread

check-unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t --jobs 2; done

# The pool's tests under ThreadSanitizer, with the runtime rebuilt instrumented
# under build/tsan/ (not part of check). Criterion's sandbox cannot start under
# TSan, so the test file is built against tests/unit/mini_criterion.h.
TSAN_FLAGS = -fsanitize=thread -O1 -g
TSAN_OBJ = $(RUNTIME_SRC:runtime/%.c=$(B)/tsan/%.o)

$(B)/tsan/%.o: runtime/%.c $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(TSAN_FLAGS) -fPIC -Iruntime -c -o $@ $<

$(B)/tsan/libbrine_rt.a: $(TSAN_OBJ)
	rm -f $@ && ar rcs $@ $^

$(B)/tsan/test_%: tests/unit/test_%.c tests/unit/mini_criterion.h $(B)/tsan/libbrine_rt.a $(RUNTIME_HDR)
	$(CC) $(BASEFLAGS) $(TSAN_FLAGS) -DMINI_CRITERION -Iruntime -Itests/unit -o $@ $< $(B)/tsan/libbrine_rt.a -lm -lpthread

check-tsan: $(B)/tsan/test_pool $(B)/tsan/test_steal
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" $(B)/tsan/test_pool
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" $(B)/tsan/test_steal

# Every golden at 1, 2, 7 and 64 threads (one, a pair, an odd count, more
# threads than cores and chunks), dev and release; the par and fold ones
# (every pool split, reducer, scan and keyed tree) at 3 and 16 as well, in
# dev builds (the pool's splits are the runtime's, the same in both builds).
check-golden: all
	$(BRINE) test tests/golden --threads 1,2,7,64
	$(BRINE) test --dev --threads 3,16 tests/golden/par tests/golden/fold $(GEN_GOLDEN)/par

check-dumps: all
	tests/dumps/run.sh $(BRINE)

check-hostile: all
	tests/hostile/run.sh $(BRINE)

check-cli: all
	tests/cli/run.sh $(BRINE)
	tests/cli/forms.sh $(BRINE)
	tests/cli/install.sh

# brine build -g under gdb (skipped without gdb), the unwrap warning (~6 s)
check-debug: all
	tests/debug/run.sh $(BRINE)

# --cpu=native changes no output: release builds for this CPU against the
# same expected files (the float-heavy and par goldens and the workloads).
NATIVE_TESTS = tests/golden/float tests/golden/par $(GEN_GOLDEN)/float $(GEN_GOLDEN)/par \
	$(GEN_GOLDEN)/workloads tests/golden/fold/minmax_lanes.br tests/golden/fold/anyall_blocks.br
check-native: all
	$(BRINE) test --release --cpu=native $(NATIVE_TESTS)

# The two-part release build (backend.c) that big programs get, forced on
# programs of every size: the par and fold goldens (every kind of pool
# helper, reducer, scan and keyed tree that part 2 defines), release builds,
# the same output. The generated par matrix repeats those helpers over the
# types; check-golden runs it, in one part. Two thread counts: the helpers'
# code is what differs between the parts, not how the pool splits.
check-parts: all
	BRINE_RELEASE_PARTS=2 $(BRINE) test --release --threads 1,7 tests/golden/par tests/golden/fold

# brine fmt's own cases, then every .br of the repository in its layout
# (but those tests/fmt-exclude.txt lists).
check-fmt: all
	tests/fmt/run.sh $(BRINE)
	tests/fmt/repo.sh $(BRINE)

# reduce, scan and by against the Python model (tests/tools/fold_ref.py):
# random cases bit for bit at 1, 2 and 7 threads, dev and release, and
# cases of 33 to 3,000 keys (the stamps way) by the sparse keyed model (~1 min)
check-fold: all
	python3 tests/tools/fold_check.py $(BRINE) 400 1
	python3 tests/tools/fold_check.py $(BRINE) 150 2 --release
	python3 tests/tools/fold_check.py $(BRINE) 10 3 --blocks --release

# Not part of check (the shim compiles each kernel with $$CC: ~15 min on 2
# cores): the same model comparison with every eligible reduce and scan run by
# the GPU kernels on the CPU shim (docs/gpu.md).
check-fold-gpu: all
	XDG_CACHE_HOME=$(B)/shim-cache BRINE_GPU=on BRINE_GPU_SHIM=1 python3 tests/tools/fold_check.py $(BRINE) 80 3

.PHONY: check-fold check-fold-gpu

# The examples and docs/tutorial.md's commands print what they say.
check-examples: all
	python3 tests/tools/check_examples.py $(BRINE)

.PHONY: check-examples

# brine tree's text against tests/tools/tree_ref.py's model, and the SVGs
# docs/ embeds up to date (docs-svg rewrites them); bench's plots name the
# workloads of bench/README.md's table (bench-plots redraws them).
check-tree: all
	python3 tests/tree/run.py $(BRINE)
	python3 bench/plot.py --check

docs-svg: all
	@mkdir -p docs/img
	$(BRINE) tree 80 --svg > docs/img/tree80.svg
	$(BRINE) tree 192 --carry 11 --svg > docs/img/scan_carry11.svg

# The lists in docs/ and brine.1 (keywords, builtins, methods, math, os,
# world, environment, exit statuses) against the compiler's tables.
check-doc-lists:
	python3 tests/tools/check_doc_lists.py

.PHONY: check-tree docs-svg check-doc-lists

# world programs under mpirun at 1 to 7 ranks against one process (skips
# without mpirun; docs/world.md)
check-world: all
	tests/world/run.sh $(BRINE)
	python3 tests/tools/gen_matrix.py --run $(BRINE) --world 1,3 --threads 7 --subset

# The type x operation matrix through world's collectives (gen_matrix.py
# --world): every type, one process and 1 and 3 ranks, BRINE_THREADS 1, 2, 7.
check-world-matrix: all
	python3 tests/tools/gen_matrix.py --run $(BRINE) --world 0,1,3 --threads 1,2,7

# the whole matrix: every rank count 1..7 x BRINE_THREADS 1, 2, 3 x dev and
# release x each installed MPI (about 1,100 runs, 5 minutes on 2 cores)
check-world-full: all
	WORLD_FULL=1 tests/world/run.sh $(BRINE)

.PHONY: check-world check-world-full check-world-matrix

# The language server (docs/editors.md): a JSON-RPC client over the golden
# programs, half-typed files through it, a 10,000-line file's latency; the
# editors' grammar against the lexer, Neovim with its LSP client attached,
# the shell completions.
check-lsp: all
	python3 tests/lsp/test_lsp.py $(BRINE)
	python3 tests/lsp/fuzz_lsp.py $(BRINE)
	python3 tests/lsp/latency.py $(BRINE) --limit-ms $(LSP_LIMIT_MS)
LSP_LIMIT_MS ?= 100

check-editors: all
	python3 tests/editors/test_grammar.py $(BRINE)
	tests/editors/nvim.sh $(BRINE)
	tests/editors/completions.sh $(BRINE)

# Not part of check: docs/editors-neovim.png, Neovim under tmux showing a
# diagnostic, rendered from tmux capture-pane (tmux, python3-pil).
editors-screenshot: all
	tests/editors/screenshot.sh $(BRINE) docs/editors-neovim.png

.PHONY: check-lsp check-editors editors-screenshot

check-man: brine.1
	mandoc -Tlint -W warning brine.1

# GPU offload without a GPU (docs/gpu.md): NVRTC compiles the kernels (skipped
# without libnvrtc), the CPU shim runs them bit for bit against the CPU.
$(B)/tests/gpu/nvrtc_check: tests/gpu/nvrtc_check.c $(RTLIB) $(GPU_RT_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -Iruntime -o $@ $< $(RTLIB) -ldl -lm -lpthread

check-gpu: all $(B)/tests/gpu/nvrtc_check
	$(CC) $(BASEFLAGS) -fsyntax-only -x c runtime-gpu/kernel_prelude.h
	tests/gpu/run.sh $(BRINE) $(B)/tests/gpu/nvrtc_check

# The same over the whole golden suite (a few minutes).
check-gpu-golden: all $(B)/tests/gpu/nvrtc_check
	tests/gpu/run.sh $(BRINE) $(B)/tests/gpu/nvrtc_check --golden

.PHONY: check-gpu check-gpu-golden

# brine's math against MPFR (tests/math/check_math.c): every function,
# correctly rounded, on the special values, the published hard cases
# (tests/math/hard.txt), MATH_N random inputs and a sweep of the floats each.
# check-math-quick (part of check): brine's own functions, 10^5 inputs each;
# check-math (not part of check, long): every function, 10^7 each, and the
# platform libm's mismatches on the same inputs for comparison.
MATH_N ?= 10000000
# every MATH_F32_STRIDE-th float as an argument too (1: all 2^32 of them, hours)
MATH_F32_STRIDE ?= 4099
$(B)/tests/math/check_math: tests/math/check_math.c $(RTLIB) $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -Iruntime -o $@ $< $(RTLIB) -lmpfr -lgmp -ldl -lm -lpthread

# check_math_acc: the same with every input on the accurate path
# (CRM_TEST_ACCURATE: the rounding tests fail), so that path is checked on
# its own, not only on the few inputs that reach it.
# (both copies of the math: math.c's and math_fma.c's, which math.c picks on
# FMA machines).
$(B)/tests/math/acc_%.o: runtime/%.c $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -DCRM_TEST_ACCURATE $(if $(findstring fma,$*),$(MATH_FMA_FLAGS)) -Iruntime -c -o $@ $<

$(B)/tests/math/check_math_acc: tests/math/check_math.c $(B)/tests/math/acc_math.o $(B)/tests/math/acc_math_fma.o $(RTLIB) $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -Iruntime -o $@ $< $(B)/tests/math/acc_math.o $(B)/tests/math/acc_math_fma.o $(RTLIB) -lmpfr -lgmp -ldl -lm -lpthread

# check_lanes: the math lanes (runtime/math_lanes.c) against the scalar
# functions, bit for bit (tests/math/check_lanes.c).
$(B)/tests/math/check_lanes: tests/math/check_lanes.c $(RTLIB) $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -Iruntime -o $@ $< $(RTLIB) -ldl -lm -lpthread

check-math-quick: all $(B)/tests/math/check_math $(B)/tests/math/check_math_acc $(B)/tests/math/check_lanes
	$(B)/tests/math/check_math -o -n 100000 -H tests/math/hard.txt
	$(B)/tests/math/check_math_acc -o -n 10000 -H tests/math/hard.txt
	$(B)/tests/math/check_lanes -n 100000 -H tests/math/hard.txt
	tests/math/lanes_emitted.sh $(BRINE)

check-math: $(B)/tests/math/check_math $(B)/tests/math/check_math_acc $(B)/tests/math/check_lanes
	nice -n 10 $(B)/tests/math/check_math -n $(MATH_N) -g -H tests/math/hard.txt -f $(MATH_F32_STRIDE)
	nice -n 10 $(B)/tests/math/check_math_acc -o -n 1000000 -H tests/math/hard.txt
	nice -n 10 $(B)/tests/math/check_lanes -n $(MATH_N) -H tests/math/hard.txt

# The math tables (runtime/crmath/*_data.h, trig_tables.h, asin_tables.h,
# erf_tables.h, lgamma_tables.h) are what tools/gen_crmath.py and
# tools/crmath/gen_{trig,asin,erf,lgamma}.py compute today (mpmath), each
# generator on a CPU of its own.
CRMATH_DATA = exp log cbrt
check-crmath-data:
	@$(MAKE) -s -j$(NPROC) $(CRMATH_DATA:%=crmath-data-%) $(CRMATH_TABLES:%=crmath-tables-%)

CRMATH_TABLES = trig asin erf lgamma
crmath-data-%:
	@python3 tools/gen_crmath.py $* | cmp -s - runtime/crmath/$*_data.h \
	    || { echo "runtime/crmath/$*_data.h differs from tools/gen_crmath.py $*"; exit 1; }
	@echo "crmath tables: $* regenerates identically"
crmath-tables-%:
	@python3 tools/crmath/gen_$*.py | cmp -s - runtime/crmath/$*_tables.h \
	    || { echo "runtime/crmath/$*_tables.h differs from tools/crmath/gen_$*.py"; exit 1; }
	@echo "crmath tables: $* regenerates identically"

# The scalar time per call against libm's on the same inputs (not part of check).
$(B)/tests/math/bench_math: tests/math/bench_math.c $(RTLIB) $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(CFLAGS) -Iruntime -o $@ $< $(RTLIB) -ldl -lm -lpthread

bench-math: $(B)/tests/math/bench_math
	$(B)/tests/math/bench_math

# The same with a third side, the math of git revision OLD (default HEAD:
# the working tree's change against it), in the same process and rotation,
# medians of BENCH_REPS (tests/math/bench_side.c): `make bench-math-ab
# OLD=main BENCH_REPS=21`.
OLD ?= HEAD
BENCH_REPS ?= 21
bench-math-ab: $(RTLIB) $(RUNTIME_HDR)
	rm -rf $(B)/bench-old && mkdir -p $(B)/bench-old $(B)/tests/math
	git archive $(OLD) runtime | tar -x -C $(B)/bench-old
	$(CC) $(BASEFLAGS) $(CFLAGS) $(MATH_FMA_FLAGS) -DSIDE=old -I$(B)/bench-old/runtime -c -o $(B)/tests/math/bench_old.o tests/math/bench_side.c
	$(CC) $(BASEFLAGS) $(CFLAGS) $(MATH_FMA_FLAGS) -DSIDE=new -Iruntime -c -o $(B)/tests/math/bench_new.o tests/math/bench_side.c
	$(CC) $(BASEFLAGS) $(CFLAGS) -DBENCH_AB -Iruntime -o $(B)/tests/math/bench_math_ab tests/math/bench_math.c \
	    $(B)/tests/math/bench_old.o $(B)/tests/math/bench_new.o $(RTLIB) -ldl -lm -lpthread
	$(B)/tests/math/bench_math_ab -n 400000 -r $(BENCH_REPS)

.PHONY: check-math check-math-quick check-crmath-data bench-math bench-math-ab

# The programs the checks run, built NPROC at a time before the checks run
# one after another (make check itself runs without -j).
CHECK_BINS = $(UNIT_BIN) $(B)/tests/math/check_math $(B)/tests/math/check_math_acc $(B)/tests/math/check_lanes \
	$(B)/fuzz-asan/frontend $(B)/tests/gpu/nvrtc_check
check-bins: all
	$(MAKE) -j$(NPROC) $(CHECK_BINS)

check: all check-bins check-unit check-math-quick check-crmath-data check-golden check-dumps check-hostile check-fuzz-smoke check-literals check-cli check-debug check-fmt check-native check-parts check-man check-fold check-examples check-tree check-doc-lists check-world check-gpu check-lsp check-editors check-fuzz-batch
	@echo "make check: all passed"

# Not part of check (slow): a representative subset of the golden programs,
# release builds, run under valgrind; any memory error or definite leak fails.
# VALGRIND_TESTS=tests/golden runs them all.
GEN_GOLDEN = tests/golden/generated
VALGRIND_TESTS ?= $(GEN_GOLDEN)/types tests/golden/par $(GEN_GOLDEN)/par \
                  $(GEN_GOLDEN)/reduce $(GEN_GOLDEN)/output $(GEN_GOLDEN)/format \
                  $(GEN_GOLDEN)/stdlib $(GEN_GOLDEN)/workloads tests/golden/regress tests/golden/lib \
                  tests/golden/values
check-valgrind: all
	python3 tests/tools/valgrind_golden.py $(BRINE) $(VALGRIND_TESTS)

# Differential fuzzing: random programs against a Python model, dev and
# release at BRINE_THREADS 1, 2, 7, and --opt=none and each pass off.
# check-fuzz-batch (part of check): the fixed seeds of tests/tools/fuzz_seeds.txt
# but those of tests/tools/fuzz_known.txt (findings being fixed elsewhere),
# plus FUZZ_FRESH seeds from the clock (printed, so a finding can be rerun).
# check-fuzz (not part of check): N programs from FUZZ_SEED on (N=20000 for a
# long batch), then as many mutated golden programs.
FUZZ_FRESH ?= 4
FUZZ_SEED ?= 1
N ?= 200
FUZZ_N ?= $(N)
FUZZ_J ?= 2
# The fixed seeds fail the check; a finding on one of the fresh seeds is
# printed with its seed (fuzz_programs.py --show SEED) but does not fail it,
# so that main stays green while the finding is reduced and fixed.
# The fixed seeds go 16 to a build (fuzz_campaign.py: the same variants and
# runs, a failing build taken apart program by program), every other build's
# release builds --cpu=native and every other build also with each pass alone
# off (check-fuzz-campaign: every build): about 4 minutes on 2 cores where one
# build a program with every variant took 8 (its release builds and one build
# per pass off dominate).
check-fuzz-batch: all
	nice -n 10 python3 tests/tools/fuzz_campaign.py $(BRINE) --seeds tests/tools/fuzz_seeds.txt \
	    --exclude tests/tools/fuzz_known.txt -j $(FUZZ_J) --batch 16 --release-off-every 1 --native-every 2 \
	    --pass-off-every 2 \
	    --log $(B)/fuzz-batch.jsonl --keep $(B)/fuzz-batch-kept
	nice -n 10 python3 tests/tools/fuzz_programs.py $(BRINE) -n $(FUZZ_FRESH) --seed $$(od -An -N4 -tu4 /dev/urandom | tr -d ' ') \
	    -j $(FUZZ_J) || echo "check-fuzz-batch: a FINDING on a fresh seed above (not failing make check): reduce it (tests/tools/reduce.py), fix it, add its seed to tests/tools/fuzz_seeds.txt"

check-fuzz: all
	nice -n 10 python3 tests/tools/fuzz_programs.py $(BRINE) -n $(FUZZ_N) --seed $(FUZZ_SEED) -j $(FUZZ_J)
	python3 tests/tools/mutate_golden.py $(BRINE) -n $(FUZZ_N) --run

# check-fuzz-campaign (not part of check): the same check of FUZZ_N programs
# from FUZZ_SEED on, 16 to a build (tests/tools/fuzz_campaign.py: about 10
# times cheaper a program), --release --opt=none on every 4th build; a line
# per build goes to FUZZ_LOG as it ends (--summary FILE prints its totals).
# check-fuzz-memory (not part of check): FUZZ_N programs, 8 to a build, each
# build under valgrind and with its C built with ASan + UBSan, dev and
# release (memcheck.py), besides the differential check.
FUZZ_LOG ?= $(B)/fuzz-campaign.jsonl
check-fuzz-campaign: all
	nice -n 10 python3 tests/tools/fuzz_campaign.py $(BRINE) -n $(FUZZ_N) --seed $(FUZZ_SEED) -j $(FUZZ_J) \
	    --batch 16 --release-off-every 4 --log $(FUZZ_LOG)

check-fuzz-memory: all $(B)/asan/libbrine_rt.a
	nice -n 10 python3 tests/tools/fuzz_campaign.py $(BRINE) -n $(FUZZ_N) --seed $(FUZZ_SEED) -j $(FUZZ_J) \
	    --batch 8 --memory-every 1 --log $(B)/fuzz-memory.jsonl

.PHONY: check-bins check-valgrind check-fuzz check-fuzz-batch check-fuzz-campaign check-fuzz-memory

# The runtime built with AddressSanitizer and UBSan under build/asan/, for
# the generated C of test programs built the same way (tests/tools/memcheck.py).
ASAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1 -g
ASAN_OBJ = $(RUNTIME_SRC:runtime/%.c=$(B)/asan/%.o) $(GPU_RT_SRC:runtime-gpu/%.c=$(B)/asan/gpu_%.o)

$(B)/asan/%.o: runtime/%.c $(RUNTIME_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(ASAN_FLAGS) -fno-fast-math -fPIC -Iruntime -c -o $@ $<

$(B)/asan/gpu_%.o: runtime-gpu/%.c $(RUNTIME_HDR) $(GPU_RT_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) $(ASAN_FLAGS) -fno-fast-math -fPIC -Iruntime -c -o $@ $<

$(B)/asan/libbrine_rt.a: $(ASAN_OBJ)
	rm -f $@ && ar rcs $@ $^

asan-runtime: $(B)/asan/libbrine_rt.a

# The type x operation matrix (tests/tools/gen_matrix.py), whole: every
# program in dev and release builds, under valgrind, and its generated C
# built with ASan + UBSan (docs/testing.md). Not part of check.
check-memory: all $(B)/asan/libbrine_rt.a
	python3 tests/tools/gen_matrix.py --run $(BRINE) --memory
	python3 tests/tools/memcheck.py $(BRINE) tests/golden/regress/unused_constant_released.br

.PHONY: asan-runtime check-memory

# ---- fuzzing the front end (tests/fuzz; docs/testing.md) ----------------------

# The harness links the compiler without its driver: the pipeline up to the
# C text, in process. Two builds of it: under ASan and UBSan with $(CC) for the
# smoke run of make check, and with AFL++'s instrumentation for fuzz-frontend.
FUZZ_SRC = $(filter-out compiler/main.c compiler/cli.c compiler/testrun.c compiler/fmt.c compiler/backend.c \
                        compiler/json.c compiler/lsp.c compiler/lsp_index.c compiler/lsp_query.c compiler/completions.c compiler/tree_draw.c,$(COMPILER_SRC))
FUZZ_GEN = $(B)/gen/lexer.c $(B)/gen/parser.c $(B)/gen/kernel_prelude.c
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_ASAN_OBJ = $(FUZZ_SRC:compiler/%.c=$(B)/fuzz-asan/%.o) $(FUZZ_GEN:$(B)/gen/%.c=$(B)/fuzz-asan/gen/%.o)
FUZZ_AFL_OBJ  = $(FUZZ_SRC:compiler/%.c=$(B)/fuzz-afl/%.o) $(FUZZ_GEN:$(B)/gen/%.c=$(B)/fuzz-afl/gen/%.o)
AFL_CC ?= afl-clang-fast
FUZZ_TIME ?= 600
FUZZ_OUT ?= $(B)/fuzz-out

$(B)/fuzz-asan/%.o: compiler/%.c $(COMPILER_HDR) $(B)/gen/parser.h runtime/brine_rt.h
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) -O1 -g $(FUZZ_SAN) -Icompiler -I$(B)/gen -Iruntime -c -o $@ $<
$(B)/fuzz-asan/gen/%.o: $(B)/gen/%.c $(B)/gen/parser.h $(COMPILER_HDR)
	@mkdir -p $(@D)
	$(CC) $(BASEFLAGS) -O1 -g $(FUZZ_SAN) -Wno-unused-function -Wno-sign-compare -Icompiler -I$(B)/gen -Iruntime -c -o $@ $<
$(B)/fuzz-asan/frontend: tests/fuzz/frontend.c $(FUZZ_ASAN_OBJ) $(RTLIB)
	$(CC) $(BASEFLAGS) -O1 -g $(FUZZ_SAN) -Icompiler -I$(B)/gen -Iruntime -o $@ $< $(FUZZ_ASAN_OBJ) $(RTLIB) -ldl -lm -lpthread

$(B)/fuzz-afl/%.o: compiler/%.c $(COMPILER_HDR) $(B)/gen/parser.h runtime/brine_rt.h
	@mkdir -p $(@D)
	$(AFL_CC) -std=gnu11 -ffp-contract=off -O2 -g -w -Icompiler -I$(B)/gen -Iruntime -c -o $@ $<
$(B)/fuzz-afl/gen/%.o: $(B)/gen/%.c $(B)/gen/parser.h $(COMPILER_HDR)
	@mkdir -p $(@D)
	$(AFL_CC) -std=gnu11 -ffp-contract=off -O2 -g -w -Icompiler -I$(B)/gen -Iruntime -c -o $@ $<
$(B)/fuzz-afl/frontend: tests/fuzz/frontend.c $(FUZZ_AFL_OBJ) $(RTLIB)
	$(AFL_CC) -std=gnu11 -O2 -g -w -Icompiler -I$(B)/gen -Iruntime -o $@ $< $(FUZZ_AFL_OBJ) $(RTLIB) -ldl -lm -lpthread

# AFL++ is not in deps (only this target needs it): installed here when missing.
afl-install:
	@command -v afl-fuzz >/dev/null && command -v $(AFL_CC) >/dev/null && exit 0; \
	if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	echo "fuzz-frontend: installing afl++"; \
	$$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y afl++ clang

# FUZZ_TIME seconds of AFL++ on the front end from tests/fuzz/corpus (resumed
# when $(FUZZ_OUT) holds an earlier run); findings under $(FUZZ_OUT)/default/.
fuzz-frontend: all afl-install
	$(MAKE) $(B)/fuzz-afl/frontend $(B)/fuzz-asan/frontend
	AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 \
	BRINE_FUZZ_STDLIB=$(LIBDIR)/stdlib \
	afl-fuzz -V $(FUZZ_TIME) -t 2000 -m none -e br -x tests/fuzz/brine.dict \
	    -i $$(if [ -d $(FUZZ_OUT)/default/queue ]; then echo -; else echo tests/fuzz/corpus; fi) \
	    -o $(FUZZ_OUT) -- $(B)/fuzz-afl/frontend @@
	tests/fuzz/triage.sh $(B)/fuzz-asan/frontend $(FUZZ_OUT)/default

# Every corpus file and every tests/fuzz/found case through the ASan/UBSan
# harness: exit 0 or 1, no signal, no internal error (seconds).
check-fuzz-smoke: all $(B)/fuzz-asan/frontend
	tests/fuzz/smoke.sh $(B)/fuzz-asan/frontend

# Literal expressions folded by the checker against a Python model: the
# overflowing ones are compile errors, the others print the model's value (4 s).
check-literals: all
	python3 tests/tools/literal_fold.py $(BRINE) 1 2

.PHONY: afl-install fuzz-frontend check-fuzz-smoke check-literals

# ---- a fresh Debian 12 machine: make bootstrap, then make check -------------

# What building brine needs (make deps), and what make check needs on top
# of it (make deps-test: the unit tests, the man page lint, valgrind, the
# Python tools, both MPIs for the world programs, patch for fmt's diffs,
# MPFR for the math functions' reference, mpmath for their tables).
# Both install the missing ones with apt-get (through sudo unless run as
# root) and skip the rest. DEB_PKGS is everything.
DEB_PKGS_BUILD = gcc libc6-dev make re2c bison tcc libtcc-dev
DEB_PKGS = $(DEB_PKGS_BUILD) libcriterion-dev libmpfr-dev python3-mpmath mandoc gdb time \
           valgrind python3 python3-numpy openmpi-bin libopenmpi-dev \
           mpich libmpich-dev patch neovim tmux python3-pil zsh fish

define apt_install
	@missing=""; \
	for p in $(1); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' \
	        || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "$@: all installed"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	echo "$@: installing$$missing"; \
	$$sudo apt-get update && \
	$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing
endef

deps:
	$(call apt_install,$(DEB_PKGS_BUILD))

deps-test:
	$(call apt_install,$(DEB_PKGS))

# The benchmarks' plots (bench/plot.py) need matplotlib, their numba peers
# (bench/workloads.py, bench/variants.py) numba from PyPI; make check needs neither.
DEB_PKGS_BENCH = python3-matplotlib

deps-bench:
	$(call apt_install,$(DEB_PKGS_BENCH))
	@if python3 -c 'import numba' 2>/dev/null; then echo "$@: numba installed"; else python3 -m pip install numba; fi

# bench/README.md's workloads table as bench/plots/*.svg (not part of check)
bench-plots:
	python3 bench/plot.py

.PHONY: deps deps-test deps-bench bench-plots

bootstrap: deps-test
	$(MAKE) -j2 all
	$(BRINE) run examples/hello.br

# ---- install, uninstall -----------------------------------------------------

# Everything install puts, so that uninstall removes exactly that: the
# binary, the runtime and the stdlib under lib/brine, the man page, and the
# docs and examples under share/doc/brine. uninstall removes these files,
# then brine's own directories if they are empty (never bin/ or man1/).
RT_HEADERS = runtime/brine_rt.h runtime/brine_math.h runtime/reduce_shape.h runtime/wrap_ovf.h
DOC_FILES  = README.md CHANGELOG.md LICENSE $(wildcard docs/*.md docs/*.svg)
EXAMPLES   = $(wildcard examples/*.br)
IBIN = $(DESTDIR)$(PREFIX)/bin
ILIB = $(DESTDIR)$(PREFIX)/lib/brine
IMAN = $(DESTDIR)$(PREFIX)/share/man/man1
IDOC = $(DESTDIR)$(PREFIX)/share/doc/brine
# shell completions where bash-completion, zsh and fish look
IBASHC = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
IZSHC = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
IFISHC = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

install: all
	install -d $(IBIN) $(ILIB)/include $(ILIB)/stdlib $(IMAN) $(IDOC)/docs $(IDOC)/examples
	install -m 755 $(BRINE) $(IBIN)/brine
	install -m 644 $(RTLIB) $(ILIB)/libbrine_rt.a
	install -m 644 $(RT_HEADERS) $(ILIB)/include/
	install -m 644 $(STDLIB) $(ILIB)/stdlib/
	install -m 644 brine.1 $(IMAN)/brine.1
	install -m 644 README.md CHANGELOG.md LICENSE $(IDOC)/
	install -m 644 $(filter docs/%,$(DOC_FILES)) $(IDOC)/docs/
	install -m 644 $(EXAMPLES) $(IDOC)/examples/
	install -d $(IBASHC) $(IZSHC) $(IFISHC)
	$(BRINE) completions bash > $(IBASHC)/brine
	$(BRINE) completions zsh > $(IZSHC)/_brine
	$(BRINE) completions fish > $(IFISHC)/brine.fish

uninstall:
	rm -f $(IBIN)/brine $(ILIB)/libbrine_rt.a $(IMAN)/brine.1
	rm -f $(IBASHC)/brine $(IZSHC)/_brine $(IFISHC)/brine.fish
	rm -f $(addprefix $(ILIB)/include/,$(notdir $(RT_HEADERS))) $(addprefix $(ILIB)/stdlib/,$(notdir $(STDLIB)))
	rm -f $(addprefix $(IDOC)/,$(DOC_FILES) $(EXAMPLES))
	-rmdir $(ILIB)/include $(ILIB)/stdlib $(ILIB) $(IDOC)/docs $(IDOC)/examples $(IDOC) 2>/dev/null

# make install into a DESTDIR, the installed brine builds and runs a
# program, make uninstall leaves nothing there (part of check-cli).
check-install: all
	tests/cli/install.sh

clean:
	rm -rf $(B)

.PHONY: all check check-tsan check-unit check-golden check-dumps check-hostile check-cli check-debug check-fmt check-native check-man install clean stdlib-copy \
        deps deps-test bootstrap uninstall check-install FORCE
.SECONDARY:
