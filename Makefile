# tilepx: plain GNU make. `make` builds build/tilepx, build/libtilepx.a and build/libtilepx.so.
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror
CPPFLAGS += -I$(B)/gen -Isrc
PREFIX  ?= /usr/local
CUDA    ?= /usr/local/cuda
B       := build
# every compile writes FILE.d next to its output: the headers it read, so
# touching one rebuilds what includes it (-MP: a deleted header is no error)
DEPFLAGS := -MMD -MP

# src/'s folders are its layers (tools/layers.sh, docs/design.md "Layers"); flat
# src/*.c files still build (a new file gets its folder before it merges)
LIB_SRC := $(wildcard src/*.c src/*/*.c)
LIB_SRC := $(filter-out src/main.c,$(LIB_SRC))
LIB_OBJ := $(patsubst src/%.c,$(B)/obj/%.o,$(LIB_SRC)) $(B)/obj/gen/ptx_forms.o
TPL     := $(wildcard ptx_templates/*.tpl)
UNIT    := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/*.c))

all: $(B)/tilepx $(B)/libtilepx.a $(B)/libtilepx.so $(B)/randtile $(B)/ptxemu

# the tools of several files are linked from objects, each with its .d file
# (they include src/tilepx.h, hence the generated ptx_forms.h: named here,
# as for the library's objects, so a clean parallel build makes it first)
$(B)/tools/%.o: tools/%.c $(B)/gen/ptx_forms.h Makefile
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) $(DEPFLAGS) -c $< -o $@

# the emulator and the runners' shared core (emu/): objects in $(B)/emu
$(B)/emu/%.o: emu/%.c $(B)/gen/ptx_forms.h Makefile
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) $(DEPFLAGS) -c $< -o $@

PTXEMU_OBJ := $(patsubst emu/%.c,$(B)/emu/%.o,$(wildcard emu/*.c))
$(B)/ptxemu: $(PTXEMU_OBJ) $(B)/libtilepx_internal.a
	$(CC) $(CFLAGS) $^ -lpthread -lm $(LDFLAGS) -o $@

$(B)/sasscount: tools/sasscount.c Makefile
	@mkdir -p $(B)
	$(CC) $(WARN) $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) $< -o $@

# registers, spills and SASS instructions of every bench/codegen pair (a
# .tile and its CUDA C++ twin); ONLY=GLOB picks pairs
bench-codegen: $(B)/tilepx $(B)/sasscount
	TILEPX_BUILD=$(B) bash bench/codegen/run.sh

$(B)/emit_cost: bench/emit_cost.c $(B)/libtilepx_internal.a Makefile
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) $(DEPFLAGS) $< $(B)/libtilepx_internal.a $(LDFLAGS) -o $@

# emission time and memory per copy statement at 1k, 10k and 100k copies
bench-emit: $(B)/emit_cost
	$(B)/emit_cost 1000 5
	$(B)/emit_cost 10000 3
	$(B)/emit_cost 100000 1

# compares explain's JSON records with the fields an expectation names (tests/lib.sh)
$(B)/jsonsub: tools/jsonsub.c
	@mkdir -p $(B)
	$(CC) $(WARN) $(CFLAGS) $(LDFLAGS) $< -o $@

# randtile writes statements from stmt.def's rows (keyword, scope, capability)
$(B)/randtile: tools/randtile.c $(B)/libtilepx_internal.a Makefile
	@mkdir -p $(B)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) $(DEPFLAGS) $< $(B)/libtilepx_internal.a $(LDFLAGS) -o $@

# one awk run writes both files; the .c rides on the .h (safe under make -j)
$(B)/gen/ptx_forms.c: $(B)/gen/ptx_forms.h
	@test -f $@

$(B)/gen/ptx_forms.h: $(TPL) ptx_templates/caps.def tools/gen_forms.awk
	@mkdir -p $(B)/gen
	awk -v H=$(B)/gen/ptx_forms.h.tmp -v C=$(B)/gen/ptx_forms.c.tmp -v CAPS=ptx_templates/caps.def -f tools/gen_forms.awk $(TPL)
	mv $(B)/gen/ptx_forms.c.tmp $(B)/gen/ptx_forms.c
	mv $(B)/gen/ptx_forms.h.tmp $(B)/gen/ptx_forms.h

# the headers come from the .d files; ptx_forms.h is named because it is
# generated (a first build must make it before any .c that includes it); the
# Makefile because its flags make the objects (and an object built before
# the .d files existed is rebuilt once)
# the library's objects are position-independent: one set serves the
# archives and the shared library
$(B)/obj/%.o: src/%.c $(B)/gen/ptx_forms.h Makefile
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -fPIC $(CPPFLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/obj/gen/ptx_forms.o: $(B)/gen/ptx_forms.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -fPIC $(CPPFLAGS) $(DEPFLAGS) -c $< -o $@

$(B)/libtilepx_internal.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# the public archive: one relocatable object in which only tilepx_* stay
# global, so the library's internals never clash with a user's symbols
# (the tools and tests link the internal archive above)
$(B)/libtilepx.a: $(LIB_OBJ)
	$(LD) -r $^ -o $(B)/obj/tilepx_all.o
	objcopy -w --keep-global-symbol='tilepx_*' $(B)/obj/tilepx_all.o
	rm -f $@
	ar rcs $@ $(B)/obj/tilepx_all.o

# the shared library (ctypes loads it: python/tilepx): soname libtilepx.so.0,
# only tilepx_* exported (src/libtilepx.map); the CUDA driver is opened at
# run time (src/launch.c), so it needs none at link time
SONAME := libtilepx.so.0
$(B)/libtilepx.so: $(LIB_OBJ) src/libtilepx.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=src/libtilepx.map $(CFLAGS) $(LIB_OBJ) -ldl $(LDFLAGS) -o $@
	ln -sf libtilepx.so $(B)/$(SONAME)

$(B)/tilepx: $(B)/obj/main.o $(B)/libtilepx_internal.a
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

$(B)/tests/%: tests/unit/%.c $(B)/libtilepx_internal.a Makefile
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) $(DEPFLAGS) $< $(B)/libtilepx_internal.a -ldl -lm $(LDFLAGS) -o $@

# the launch ABI's test checks entries with the runners' own check (emu/runcore.c)
$(B)/tests/test_abi: tests/unit/test_abi.c $(B)/emu/runcore.o $(B)/libtilepx_internal.a Makefile
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -Iemu $(DEPFLAGS) tests/unit/test_abi.c $(B)/emu/runcore.o $(B)/libtilepx_internal.a \
		-lpthread $(LDFLAGS) -o $@

# the GEMM bench's host side is tested without a GPU (tests/unit/test_gemm_host.c)
$(B)/tests/test_gemm_host: bench/gemm_host.h

# the driver-API harness: built with the toolkit's cuda.h, it links no
# libcuda: its driver calls go through tools/cuda_dl.c and the library's
# launch layer, both opening libcuda.so.1 at run time (so it starts, and
# says "no CUDA driver", on a machine without one)
$(B)/tools/tilepx_run.o $(B)/tools/cuda_dl.o: CPPFLAGS += -I$(CUDA)/include -Iemu
$(B)/tilepx-run: $(B)/tools/tilepx_run.o $(B)/tools/cuda_dl.o $(B)/emu/runcore.o $(B)/emu/attention_host.o $(B)/libtilepx_internal.a
	$(CC) $(CFLAGS) $^ -ldl -lpthread -lm $(LDFLAGS) -o $@

# the GEMM benchmark (bench/gemm.sh, issue 27): tilepx's kernel, cublasGemmEx and cuBLASLt in one
# process; it needs the toolkit's cuBLAS libraries, so neither `all` nor `test` builds it
$(B)/gemm_bench: bench/gemm_bench.c bench/gemm_host.h $(B)/libtilepx.a include/tilepx/tilepx.h
	$(CC) $(WARN) $(CFLAGS) -Iinclude -I$(CUDA)/include $< $(B)/libtilepx.a -L$(CUDA)/lib64 -L$(CUDA)/lib64/stubs \
		-Wl,-rpath,$(CUDA)/lib64 -lcublas -lcublasLt -lcuda -lpthread -ldl -lm $(LDFLAGS) -o $@

bench-gemm: $(B)/gemm_bench

# the same bench against bench/gemm_mock.c (the driver, cuBLAS and cuBLASLt on the host: no GPU, CUDA
# headers only): its cuBLAS argument mapping against the BLAS definition, its checks seen to fail
$(B)/gemm_bench_mock: bench/gemm_bench.c bench/gemm_mock.c bench/gemm_host.h $(B)/libtilepx.a include/tilepx/tilepx.h
	$(CC) $(WARN) $(CFLAGS) -Iinclude -I$(CUDA)/include bench/gemm_bench.c bench/gemm_mock.c $(B)/libtilepx.a \
		-lpthread -ldl -lm $(LDFLAGS) -o $@

bench-gemm-mock: $(B)/gemm_bench_mock
	TILEPX_BUILD=$(B) bash bench/gemm_mock.sh

HARNESS := $(if $(wildcard $(CUDA)/include/cuda.h),$(B)/tilepx-run)

# make test T=PATTERN runs only the sections whose title contains PATTERN;
# make test T=FILE.tile (one or more files) runs every check that applies to each
test: all $(UNIT) $(HARNESS) $(B)/jsonsub $(B)/emit_cost $(B)/sasscount
	@TEST_FILTER='$(T)' bash tests/run.sh

# regenerate tests/golden from the examples and show what changed
golden: all
	@for f in examples/*.tile; do $(B)/tilepx emit "$$f" -o "tests/golden/$$(basename "$${f%.tile}").ptx" || exit 1; done
	@git diff --stat -- tests/golden; git status --short -- tests/golden

# on a machine with a GPU: every example and GPU test program, bit for bit
gpu-test: all $(B)/tilepx-run
	bash tests/gpu.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/tilepx $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 755 $(B)/tilepx $(DESTDIR)$(PREFIX)/bin/tilepx
	install -m 644 $(B)/libtilepx.a $(DESTDIR)$(PREFIX)/lib/libtilepx.a
	install -m 755 $(B)/libtilepx.so $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libtilepx.so
	install -m 644 include/tilepx/tilepx.h $(DESTDIR)$(PREFIX)/include/tilepx/tilepx.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(shell sed -n 's/.*TILEPX_VERSION_STRING "\(.*\)"/\1/p' include/tilepx/tilepx.h)|' \
		tools/tilepx.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tilepx.pc

# the same suite under gcc's AddressSanitizer and UndefinedBehaviorSanitizer
sanitize:
	$(MAKE) B=build/san CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" all $(patsubst $(B)/%,build/san/%,$(UNIT) $(HARNESS) $(B)/jsonsub $(B)/sasscount)
	TILEPX_BUILD=build/san bash tests/run.sh

# libFuzzer targets (clang): the whole pipeline, the layout parser and scalar values (--set), seeded
# from examples/ and tests/; findings land in build/fuzz/findings
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_FLAGS := -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
build/fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(B)/gen/ptx_forms.c $(wildcard src/*.h src/*.def src/*/*.h src/*/*.def ptx_templates/*.def)
	@mkdir -p build/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) $(CPPFLAGS) $< $(LIB_SRC) $(B)/gen/ptx_forms.c -o $@

fuzz: build/fuzz/fuzz_pipeline build/fuzz/fuzz_layout build/fuzz/fuzz_set
	@mkdir -p build/fuzz/corpus_pipeline build/fuzz/corpus_layout build/fuzz/corpus_set build/fuzz/findings
	cp examples/*.tile tests/bad/*.tile tests/explain/*.tile tests/gpu/*.tile build/fuzz/corpus_pipeline/
	cp tests/fuzz/corpus_layout/* build/fuzz/corpus_layout/
	cp tests/fuzz/corpus_set/* build/fuzz/corpus_set/
	build/fuzz/fuzz_pipeline -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 \
		-artifact_prefix=build/fuzz/findings/ build/fuzz/corpus_pipeline
	build/fuzz/fuzz_layout -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 \
		-artifact_prefix=build/fuzz/findings/ build/fuzz/corpus_layout
	build/fuzz/fuzz_set -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 \
		-artifact_prefix=build/fuzz/findings/ build/fuzz/corpus_set

clean:
	rm -rf build

# a build from before emu/ left a test_abi.d that names tools/runcore.c: no error for it
tools/runcore.c:
	@:

# the headers each object, tool and unit test read when it was last built
-include $(wildcard $(B)/*.d $(B)/obj/*.d $(B)/obj/*/*.d $(B)/emu/*.d $(B)/tools/*.d $(B)/tests/*.d)

.PHONY: bench-emit bench-codegen bench-gemm bench-gemm-mock all test gpu-test install sanitize fuzz clean
