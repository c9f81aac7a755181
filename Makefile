# sbxsup — build, test, install.
#
# Sources are picked up by directory, so adding a file never needs a Makefile edit:
#   policy/*.c      libc-only policy core (glob, paths, compiled policy, report records)
#                   -> $(B)/libpolicy.a, linked into sbxsup, libsbxpreload.so, tests, fuzzers
#   audit/*.c       the audit stream: writer, reader, model, severity (cJSON + libsodium)
#   common/*.c      small shared helpers                  -> $(B)/libcommon.a, sbxsup + tests
#   supervisor/**.c the sbxsup CLI, by concern: cli/ (one cmd_*.c per command, the `audit`
#                   review commands audit_*.c; cli/main.c holds main()), manifest/, run/, layers/
#                   probes/ (the BPF probes engine and its layer entry), lib/, serve/, shadow/
#                   -> $(B)/libsup.a
#   Every folder holding a header is on the include path; no two sources share a basename
#   (an archive keeps members by basename: a second run.o would silently replace the first).
#   preload/*.c     libsbxpreload.so (+ common/idmap.c: libc-only, shared with the seccomp layer)
#   bpf/*.bpf.c     CO-RE BPF objects -> $(B)/bpf/NAME.skel.h (bpftool gen skeleton)
#   tests/unit/test_*.c      one cmocka binary each
#   tests/progs/*.c          helper programs for integration tests; *_static.c are linked -static
#   tests/fuzz/fuzz_*.c      libFuzzer targets (make fuzz)
#   supervisor/lib/ is the public C API (sbxsup.h): every object but cli/ and main.o, built -fPIC with
#   hidden visibility, is also linked into $(B)/libsbxsup.so.0 (only the sbx_* calls of sbxsup.h
#   exported: libsbxsup.map); the sbxsup binary links the same objects statically.
#
# B (build dir) can be overridden so several builds can coexist: make B=build-foo

B        ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
CLANG    ?= clang
# Debian puts bpftool in /usr/sbin, which is not on a normal user's PATH.
ifeq ($(origin BPFTOOL),undefined)
BPFTOOL  := $(or $(shell command -v bpftool 2>/dev/null),$(firstword $(wildcard /usr/sbin/bpftool /sbin/bpftool)),bpftool)
endif
PKGS     := libseccomp libbpf libcjson libsodium libmnl libnftables
VERSION  := 0.1.0

# Build and run dependencies (make deps; always --no-install-recommends). Test-only tools are not
# here: DEB_TEST_PKGS (a browser for the HTML report tests, strace, curl, what the compatibility
# suite runs, podman and runc for tests/integration/container.sh) are installed by
# `make test-deps` / .ci/run, never by the demo.
DEB_PKGS := build-essential libseccomp-dev libbpf-dev libcjson-dev libcmocka-dev libsodium-dev libmnl-dev libnftables-dev \
            clang libclang-rt-dev llvm bpftool libelf-dev zlib1g-dev pkg-config bubblewrap python3 file iproute2
# The compatibility suites (tests/integration/compat.sh, compat_tools.sh) run git, tar, ps/top/pgrep
# (procps), sqlite3, curl, python3 -m venv and a slice of
# CPython's own regression tests (the Debian package is named after the default python3's version).
PY_TESTSUITE  = libpython$(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)-testsuite
DEB_TEST_PKGS = chromium curl strace git tar python3-venv procps sqlite3 podman runc $(PY_TESTSUITE)
APT_INSTALL := DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends

SAN      ?=
# -fPIC (not -fPIE): the same objects make the sbxsup binary (-pie) and libsbxsup.so; hidden
# visibility: the shared library exports only what sbxsup.h marks SBX_API.
HARDEN   := -O2 -D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIC -fvisibility=hidden \
            -ffunction-sections -fdata-sections
WARN     := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wformat=2 -Wvla
ifeq ($(SAN),1)
  HARDEN := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -fPIC \
            -fvisibility=hidden
  SANLD  := -fsanitize=address,undefined
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lresolv
INC_DIRS := $(patsubst %/,%,$(sort $(dir $(shell find policy audit common supervisor -name '*.h'))))
CPPFLAGS += -D_GNU_SOURCE -DSBXSUP_VERSION='"$(VERSION)"' -I. $(addprefix -I,$(INC_DIRS)) -I$(B)/bpf \
            -DSBXSUP_LIBDIR='"$(PREFIX)/lib/sbxsup"' -DSBXSUP_BINDIR='"$(PREFIX)/bin"'
CFLAGS   += -std=gnu11 -g $(HARDEN) $(WARN)
LDFLAGS  += -pie -Wl,-z,relro,-z,now $(SANLD)

POLICY_SRC := $(wildcard policy/*.c)
COMMON_SRC := $(wildcard audit/*.c common/*.c)
SUP_SRC    := $(filter-out supervisor/cli/main.c supervisor/cli/stage_main.c,$(shell find supervisor -name '*.c' | sort))
DUP_BASE   := $(strip $(shell printf '%s\n' $(notdir $(POLICY_SRC) $(COMMON_SRC) $(SUP_SRC)) | sort | uniq -d))
ifneq ($(DUP_BASE),)
  $(error two sources share a basename (they would collide in an archive): $(DUP_BASE))
endif
PRELOAD_SRC:= $(wildcard preload/*.c)
BPF_SRC    := $(wildcard bpf/*.bpf.c)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
PROG_SRC   := $(wildcard tests/progs/*.c)
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)

POLICY_OBJ := $(POLICY_SRC:%.c=$(B)/%.o)
COMMON_OBJ := $(COMMON_SRC:%.c=$(B)/%.o)
SUP_OBJ    := $(SUP_SRC:%.c=$(B)/%.o)
PRELOAD_OBJ:= $(PRELOAD_SRC:%.c=$(B)/pic/%.o) $(POLICY_SRC:%.c=$(B)/pic/%.o) $(B)/pic/common/idmap.o
BPF_OBJ    := $(BPF_SRC:bpf/%.bpf.c=$(B)/bpf/%.bpf.o)
BPF_SKEL   := $(BPF_SRC:bpf/%.bpf.c=$(B)/bpf/%.skel.h)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
PROG_BIN   := $(PROG_SRC:tests/progs/%.c=$(B)/tests/progs/%)

SBXSUP     := $(B)/sbxsup
# the exec stage alone (supervisor/cli/stage_main.c), bound in the sandbox instead of sbxsup
STAGE_BIN  := $(B)/sbxsup-stage
# BPF objects, skeletons and vmlinux.h are kept (not deleted as intermediates): objects include them.
.SECONDARY: $(BPF_OBJ) $(BPF_SKEL) $(B)/bpf/vmlinux.h
PRELOAD_SO := $(B)/libsbxpreload.so
# libsbxsup: soname libsbxsup.so.0 (bumped only if a call of sbxsup.h ever changes incompatibly)
LIB_SONAME := libsbxsup.so.0
LIB_SO     := $(B)/$(LIB_SONAME)
LIB_OBJ    := $(filter-out $(B)/supervisor/cli/%,$(SUP_OBJ)) $(COMMON_OBJ) $(POLICY_OBJ)

.PHONY: all test check check-user asan install uninstall deps test-deps test-deps-check deps-check clean demo bench fuzz fuzz-ci \
        escape-matrix progs
all: deps-check $(SBXSUP) $(STAGE_BIN) $(PRELOAD_SO) $(LIB_SO) progs

# ---- dependencies -----------------------------------------------------------------------------
deps:
	@if [ "$$(id -u)" = 0 ]; then \
	  apt-get update && $(APT_INSTALL) $(DEB_PKGS); \
	elif command -v sudo >/dev/null 2>&1; then \
	  sudo apt-get update && sudo $(APT_INSTALL) $(DEB_PKGS); \
	else \
	  echo "make deps: not root; run:"; echo "  sudo apt-get install -y --no-install-recommends $(DEB_PKGS)"; exit 1; \
	fi
# Tools only the tests use (the HTML report tests drive a headless browser): installed by the test
# target when root finds one missing; a normal user is told, and those tests say SKIP.
test-deps-check:
	@missing=""; for t in chromium curl strace git podman runc; do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	/usr/bin/python3 -c 'import ensurepip, test.test_shutil' >/dev/null 2>&1 || missing="$$missing python3-venv/$(PY_TESTSUITE)"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then echo "sbxsup: test tools missing:$$missing — installing (make test-deps)"; \
	    $(MAKE) --no-print-directory test-deps; \
	  else echo "sbxsup: test tools missing:$$missing (tests using them will SKIP; make test-deps installs them)"; fi; \
	fi
# Tools only the tests use (the HTML report tests drive a headless browser).
test-deps:
	@if [ "$$(id -u)" = 0 ]; then \
	  apt-get update && $(APT_INSTALL) $(DEB_TEST_PKGS); \
	else \
	  echo "make test-deps: not root; run:"; echo "  sudo apt-get install -y --no-install-recommends $(DEB_TEST_PKGS)"; exit 1; \
	fi

# Checks (cheaply) that the build dependencies are there; as root installs them, otherwise says how.
deps-check:
	@missing=""; \
	for p in $(PKGS) cmocka; do pkg-config --exists $$p 2>/dev/null || missing="$$missing $$p"; done; \
	for t in $(CLANG) $(BPFTOOL) bwrap; do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then echo "sbxsup: missing:$$missing — installing (make deps)"; $(MAKE) --no-print-directory deps; \
	  else echo "sbxsup: missing build dependencies:$$missing"; \
	       echo "  install them with: make deps (sudo apt-get install -y --no-install-recommends $(DEB_PKGS))"; exit 1; fi; \
	fi

# ---- libraries and binaries -------------------------------------------------------------------
# Objects are rebuilt when the compiler or its flags change (a stamp named by their checksum), so a
# build directory made with other flags (-fPIE before the library, SAN=1) never mixes objects.
FLAGS_SUM   := $(shell echo '$(subst ',,$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS))' | cksum | cut -d' ' -f1)
FLAGS_STAMP := $(B)/.flags-$(FLAGS_SUM)
$(FLAGS_STAMP):
	@mkdir -p $(B); rm -f $(B)/.flags-*; touch $@

$(B)/%.o: %.c $(FLAGS_STAMP) | $(BPF_SKEL)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/pic/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DSBX_PRELOAD=1 -std=gnu11 -g -O2 -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
	  -fPIC -fvisibility=hidden $(WARN) -MMD -MP -c $< -o $@

$(B)/libpolicy.a: $(POLICY_OBJ)
	@rm -f $@; ar rcs $@ $^
$(B)/libcommon.a: $(COMMON_OBJ)
	@rm -f $@; ar rcs $@ $^
$(B)/libsup.a: $(SUP_OBJ)
	@rm -f $@; ar rcs $@ $^

$(SBXSUP): $(B)/supervisor/cli/main.o $(B)/libsup.a $(B)/libcommon.a $(B)/libpolicy.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< -Wl,--start-group $(filter %.a,$^) -Wl,--end-group $(PKG_LIBS) -lelf -lz

# The same objects, unused sections dropped (-ffunction-sections above, --gc-sections). The stage
# walks its own table of the layers' stage ops (supervisor/layers/layer_stage.c), so nothing it
# keeps calls into libbpf, cJSON, libsodium or nftables: it links libc and libseccomp only, and
# starts in the sandbox without loading the supervisor's seven libraries (docs/benchmarks.md
# "Start-up, issue 31"). A stage op that calls into another library fails this link (undefined
# reference): add the library here, and count its load in the start-up. Linked -static-pie (still
# position-independent: ASLR as before): no dynamic loader runs in the sandbox before the command,
# and ld.so's /etc/ld.so.preload does not load the preload into the stage (it was passive there,
# pol_stage_exe). The sanitizer build (SAN=1: no -ffunction-sections, so whole objects stay) links
# it dynamically with sbxsup's libraries, as before.
STAGE_LIBS := $(if $(SANLD),$(PKG_LIBS) -lelf -lz,$(shell pkg-config --libs libseccomp 2>/dev/null || echo -lseccomp))
STAGE_LINK := $(if $(SANLD),$(LDFLAGS),-static-pie -Wl,-z,relro,-z,now)
$(STAGE_BIN): $(B)/supervisor/cli/stage_main.o $(B)/libsup.a $(B)/libcommon.a $(B)/libpolicy.a
	$(CC) $(CFLAGS) $(STAGE_LINK) -Wl,--gc-sections -Wl,--as-needed -o $@ $< \
	  -Wl,--start-group $(filter %.a,$^) -Wl,--end-group $(STAGE_LIBS)

# The library: the objects of the binary minus the command line. Under SAN=1 it needs the sanitizer
# runtime of its client (no --no-undefined then).
$(LIB_SO): $(LIB_OBJ) supervisor/lib/libsbxsup.map
	$(CC) -shared $(SANLD) -Wl,-soname,$(LIB_SONAME) -Wl,--version-script=supervisor/lib/libsbxsup.map \
	  -Wl,-z,relro,-z,now $(if $(SANLD),,-Wl,--no-undefined) -o $@ $(LIB_OBJ) $(PKG_LIBS) -lelf -lz
	ln -sf $(LIB_SONAME) $(B)/libsbxsup.so

# The preload is never sanitizer-instrumented: it is injected into arbitrary programs.
$(PRELOAD_SO): $(PRELOAD_OBJ)
	$(CC) -shared -fPIC -Wl,-z,relro,-z,now -Wl,--no-undefined -o $@ $^ -ldl -lpthread

# ---- BPF ----------------------------------------------------------------------------------------
BTF_VMLINUX ?= /sys/kernel/btf/vmlinux
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
# UAPI headers for BPF objects built without vmlinux.h (netfilter: <linux/bpf.h> needs <asm/types.h>).
BPF_SYSINC := $(addprefix -idirafter /usr/include/,$(shell $(CC) -print-multiarch 2>/dev/null))
$(B)/bpf/vmlinux.h:
	@mkdir -p $(dir $@)
	@if [ ! -r $(BTF_VMLINUX) ]; then \
	  echo "sbxsup: $(BTF_VMLINUX) is missing: this kernel has no BTF (CONFIG_DEBUG_INFO_BTF=y is needed" \
	       "for the CO-RE BPF layers). Build with BTF_VMLINUX=/path/to/vmlinux or a BTF-enabled kernel." >&2; exit 1; fi
	$(BPFTOOL) btf dump file $(BTF_VMLINUX) format c > $@.tmp && mv $@.tmp $@

$(B)/bpf/%.bpf.o: bpf/%.bpf.c $(B)/bpf/vmlinux.h $(wildcard bpf/*.h)
	@mkdir -p $(dir $@)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(B)/bpf -Ibpf $(BPF_SYSINC) -c $< -o $@
	llvm-strip -g $@ 2>/dev/null || true

# probes: syscall numbers generated from the UAPI headers (<asm/unistd_*.h>) of the target
# architecture, with libseccomp's tables for calls newer than the installed headers; the parts in
# bpf/probes/*.bpf.h are included by bpf/probes.bpf.c.
$(B)/bpf/nr_resolve: bpf/nr_resolve.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $< $(shell pkg-config --libs libseccomp 2>/dev/null || echo -lseccomp)
$(B)/bpf/syscall_nr.h: bpf/gen_syscall_nr.sh bpf/probes/syscalls.list $(B)/bpf/nr_resolve
	@mkdir -p $(dir $@)
	sh bpf/gen_syscall_nr.sh $(ARCH) '$(CC)' bpf/probes/syscalls.list $(B)/bpf/nr_resolve > $@.tmp && mv $@.tmp $@
$(B)/bpf/probes.bpf.o: $(B)/bpf/syscall_nr.h $(wildcard bpf/probes/*.h)

$(B)/bpf/%.skel.h: $(B)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# ---- tests --------------------------------------------------------------------------------------
$(B)/tests/test_%: tests/unit/test_%.c $(B)/libsup.a $(B)/libcommon.a $(B)/libpolicy.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/lib $(PKG_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -Wl,--start-group $(filter %.a,$^) -Wl,--end-group \
	  $(PKG_LIBS) -lcmocka -lelf -lz

progs: $(PROG_BIN)
$(B)/tests/progs/%_static: tests/progs/%_static.c
	@mkdir -p $(dir $@)
	$(CC) -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wno-unused-parameter -static -o $@ $<
$(B)/tests/progs/%: tests/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wno-unused-parameter -o $@ $< -lpthread

# make test: everything, with real bwrap/BPF where the host has them. Prints "N passed, N failed, N skipped".
test: all $(UNIT_BIN) test-deps-check
	@B=$(B) SBXSUP=$(abspath $(SBXSUP)) SBXSUP_PRELOAD_LIB=$(abspath $(PRELOAD_SO)) bash tests/run.sh

# make asan: the unit and integration tests again with sbxsup built under ASan+UBSan.
asan:
	@$(MAKE) --no-print-directory B=build-asan SAN=1 test

# make check: what CI runs — the full suite, then again under ASan+UBSan, then a short fuzz pass;
# as root on CI (CI=true) also the suite as an unprivileged user (check-user), so what a normal
# user gets (SKIP: <reason> for what needs root, never a failure) cannot regress.
check:
	@$(MAKE) --no-print-directory test
	@$(MAKE) --no-print-directory asan
	@$(MAKE) --no-print-directory fuzz-ci
	@if [ "$$(id -u)" = 0 ] && [ "$${CI:-}" = true ]; then $(MAKE) --no-print-directory check-user; fi

# make check-user (root): the suite again as an unprivileged user made for it (sbxsup-ci), on a
# copy of the tree it owns; skips allowed, failures not. The user and the copy are removed after.
CHECK_USER ?= sbxsup-ci
check-user: all $(UNIT_BIN)
	@[ "$$(id -u)" = 0 ] || { echo "make check-user: needs root (it creates the user $(CHECK_USER))"; exit 1; }
	@set -e; u=$(CHECK_USER); made=; \
	if ! id -u "$$u" >/dev/null 2>&1; then useradd -m -s /bin/bash "$$u"; made=1; fi; \
	home=$$(getent passwd "$$u" | cut -d: -f6); src=$$home/sbxsup-src; \
	trap 'rm -rf "$$src"; [ -z "$$made" ] || userdel -r "$$u" 2>/dev/null || true' EXIT; \
	rm -rf "$$src"; mkdir -p "$$src"; \
	tar -C . --exclude=./build-asan --exclude='./build/fuzz' --exclude=./.git -cf - . | tar -C "$$src" -xf -; \
	chown -R "$$u": "$$src"; \
	echo "== the suite as the unprivileged user $$u (skips allowed, failures not)"; \
	su "$$u" -c "cd '$$src' && env -u CI make --no-print-directory test B=$(B)"

# ---- fuzzing (libFuzzer, clang) --------------------------------------------------------------------
FUZZ_SECONDS ?= 300
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -I. $(addprefix -I,$(INC_DIRS))
$(B)/fuzz/%: tests/fuzz/%.c $(POLICY_SRC) $(COMMON_SRC) $(SUP_SRC)
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) -DSBXSUP_VERSION='"$(VERSION)"' -DSBXSUP_LIBDIR='"$(PREFIX)/lib/sbxsup"' \
	  -I$(B)/bpf $(PKG_CFLAGS) -o $@ $^ $(PKG_LIBS) -lelf -lz
fuzz: all $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) B=$(B) bash tests/fuzz/run.sh
fuzz-ci:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=20

# ---- demo, bench, escape matrix -----------------------------------------------------------------------
demo: all
	@SBXSUP=$(abspath $(SBXSUP)) SBXSUP_PRELOAD_LIB=$(abspath $(PRELOAD_SO)) B=$(B) bash examples/demo.sh

bench: all
	@SBXSUP=$(abspath $(SBXSUP)) SBXSUP_PRELOAD_LIB=$(abspath $(PRELOAD_SO)) B=$(B) bash bench/run.sh

escape-matrix: all
	@SBXSUP=$(abspath $(SBXSUP)) SBXSUP_PRELOAD_LIB=$(abspath $(PRELOAD_SO)) B=$(B) bash tests/escape/run.sh --matrix docs/escape-matrix.md

# ---- install ------------------------------------------------------------------------------------------
# make install [DESTDIR=...] [PREFIX=/usr/local]: the binary, the preload (found as ../lib/sbxsup
# relative to the binary, whatever PREFIX was at build time), the man page, bash and zsh completion,
# the contract (docs/SPEC.md, docs/cli.md, docs/audit-schema.json) and the example manifests; the C
# library: PREFIX/include/sbxsup.h, PREFIX/lib/libsbxsup.so.0 (+ the libsbxsup.so link a build
# uses) and PREFIX/lib/pkgconfig/sbxsup.pc. PREFIX/lib, not the multiarch directory: it is where
# the preload already goes, on the default search path of ld.so and pkg-config for /usr and
# /usr/local on Debian (LIBDIR_SO=... chooses another; run ldconfig after a system-wide install).
# make uninstall removes exactly those files, then the directories install made when empty.
BINDIR     := $(PREFIX)/bin
LIBDIR     := $(PREFIX)/lib/sbxsup
MANDIR     := $(PREFIX)/share/man/man1
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
DOCDIR     := $(PREFIX)/share/doc/sbxsup
LIBDIR_SO  ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PCDIR      ?= $(LIBDIR_SO)/pkgconfig
EXAMPLES   := $(wildcard examples/manifests/*.json)
CONTRACT   := docs/SPEC.md docs/cli.md docs/audit-schema.json
install: $(SBXSUP) $(STAGE_BIN) $(PRELOAD_SO) $(LIB_SO)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASHCOMPDIR) \
	  $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(DOCDIR)/examples/manifests \
	  $(DESTDIR)$(LIBDIR_SO) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PCDIR)
	install -m 0755 $(SBXSUP) $(DESTDIR)$(BINDIR)/sbxsup
	install -m 0755 $(STAGE_BIN) $(DESTDIR)$(BINDIR)/sbxsup-stage
	install -m 0644 $(PRELOAD_SO) $(DESTDIR)$(LIBDIR)/libsbxpreload.so
	install -m 0644 man/sbxsup.1 $(DESTDIR)$(MANDIR)/sbxsup.1
	install -m 0644 completions/sbxsup.bash $(DESTDIR)$(BASHCOMPDIR)/sbxsup
	install -m 0644 completions/_sbxsup $(DESTDIR)$(ZSHCOMPDIR)/_sbxsup
	install -m 0644 $(CONTRACT) $(DESTDIR)$(DOCDIR)/
	install -m 0644 $(EXAMPLES) $(DESTDIR)$(DOCDIR)/examples/manifests/
	install -m 0644 $(LIB_SO) $(DESTDIR)$(LIBDIR_SO)/$(LIB_SONAME)
	ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR_SO)/libsbxsup.so
	install -m 0644 supervisor/lib/sbxsup.h $(DESTDIR)$(INCLUDEDIR)/sbxsup.h
	@# sbxsup.pc names the paths of this install (PREFIX given to make install, not to the build)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR_SO)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	  -e 's|@VERSION@|$(VERSION)|' supervisor/lib/sbxsup.pc.in > $(DESTDIR)$(PCDIR)/sbxsup.pc
	chmod 0644 $(DESTDIR)$(PCDIR)/sbxsup.pc
	@# the unprivileged identity a root sbxsup lends the executor in every mode (sandbox_direct.h)
	-@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && ! getent passwd sbxsup >/dev/null; then \
		useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
			--user-group sbxsup && echo "created system user sbxsup"; fi
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/sbxsup $(DESTDIR)$(BINDIR)/sbxsup-stage $(DESTDIR)$(LIBDIR)/libsbxpreload.so $(DESTDIR)$(MANDIR)/sbxsup.1 \
	  $(DESTDIR)$(BASHCOMPDIR)/sbxsup $(DESTDIR)$(ZSHCOMPDIR)/_sbxsup \
	  $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(CONTRACT))) \
	  $(addprefix $(DESTDIR)$(DOCDIR)/examples/manifests/,$(notdir $(EXAMPLES))) \
	  $(DESTDIR)$(LIBDIR_SO)/$(LIB_SONAME) $(DESTDIR)$(LIBDIR_SO)/libsbxsup.so \
	  $(DESTDIR)$(INCLUDEDIR)/sbxsup.h $(DESTDIR)$(PCDIR)/sbxsup.pc
	@for d in $(PCDIR) $(INCLUDEDIR) $(LIBDIR) $(LIBDIR_SO) $(DOCDIR)/examples/manifests $(DOCDIR)/examples $(DOCDIR) $(BINDIR) $(MANDIR) \
	  $(PREFIX)/share/man $(BASHCOMPDIR) $(PREFIX)/share/bash-completion $(ZSHCOMPDIR) $(PREFIX)/share/zsh \
	  $(PREFIX)/share/doc $(PREFIX)/lib $(PREFIX)/share $(if $(DESTDIR),$(PREFIX)); do \
	  [ ! -d "$(DESTDIR)$$d" ] || rmdir --ignore-fail-on-non-empty "$(DESTDIR)$$d"; done

clean:
	rm -rf build build-*

-include $(shell find $(B) -name '*.d' 2>/dev/null)
