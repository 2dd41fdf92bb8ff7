# tap-accel: top-level build. Everything is built under build/.
#   make          build bpf/, user/ and (with kernel headers) kmod/; installs
#                 nothing (it names missing packages: make deps installs them)
#   make test     every test suite; fails if any test fails
#                 (SUITES="unit bpf" make test runs a subset)
#   make bench    stock tun and tapx side by side: on this kernel where it
#                 loads modules, else tun here and both in a VM (FULL=1:
#                 the long matrix); report in build/bench/<timestamp>/
#   make vmtest   the VM suite (tapx.ko in a Debian guest under qemu);
#                 VM_KERNEL=6.12, 7.3 or 7.2 for that Debian kernel instead
#                 of 6.1 (fetched first where needed), also for vmbench and
#                 vmprofile
#   make vmtest-debug  the VM suite on a KASAN/kmemleak/lockdep kernel
#   make fuzz-kmod [FUZZ_SECONDS=N] [FUZZ_SEED=N]  tapx's ABI fuzzer for N s
#                 (default 600) on that kernel (tests/vm/tapx-fuzz/)
#   make vmbench / make vmprofile   the VM bench; a perf profile of a tapx
#                 write path in the VM (tests/vm/profile.sh)
#   make vmbench-ab AB=REV  tapx's write paths with this tree's module and
#                 REV's, alternating in one VM boot (tests/vm/ab.sh);
#                 vmbench and vmbench-ab count instructions per frame too
#                 (tests/vm/icount; VM_ICOUNT=0 leaves that out);
#                 VM_APPEND=vmabvhost=tx-drop,... its vhost-net cells instead
#   make vmbench-vhost [BOOTS=N]  vmbench's vhost rows over N boots (4),
#                 per boot and together (tests/vm/vhost-boots.sh)
#   make install [TUN=replace] [PREFIX=/usr/local]  the CLI, the programs and
#                 tapx through DKMS; TUN=replace makes tapx the host's tun
#                 (/etc/modprobe.d/tapx.conf); make uninstall undoes it all
#   make deb      the Debian packages tap-accel, tapx-dkms and tapx-as-tun
#                 in build/deb (mk/deb.sh; README.md, Installing)
#   make deps     install missing Debian packages (quiet when all present);
#                 bench, deb and the VM targets run it first, and test
#                 installs what the suites of SUITES need (mk/deps.sh SUITE...)
#   make clean    remove build/
#   V=1           show commands

include mk/common.mk
export TOP BUILD V VM_KERNEL

.PHONY: all deps build-deps vm-kernel deb bpf user kmod install uninstall test test-guests fuzz fuzz-kmod bench vmtest vmtest-debug debug-kernel vmbench vmbench-ab vmbench-vhost vmprofile clean

all: bpf user kmod

deps:
	$(Q)sh mk/deps.sh

build-deps:
	$(Q)sh mk/deps.sh --build

bpf: build-deps
	$(Q)$(MAKE) -C bpf

user: bpf
	$(Q)$(MAKE) -C user

kmod: build-deps
	$(Q)$(MAKE) -C kmod

# mk/install.sh: TUN=keep|replace, PREFIX, DESTDIR, KVERS.
install: bpf user
	$(Q)sh mk/install.sh install

uninstall:
	$(Q)sh mk/install.sh uninstall

deb: deps
	$(Q)sh mk/deb.sh

# What the suites of SUITES need (all of them when it is unset).
test:
	$(Q)sh mk/deps.sh $(SUITES)
	$(Q)$(MAKE) all
	$(Q)sh tests/run-all.sh

test-guests: deps
	$(Q)$(MAKE) all
	$(Q)sh tests/guests/run.sh

# Longer fuzzing than the bounded run in `make test`.
fuzz: deps
	$(Q)$(MAKE) all
	$(Q)FUZZ_SECONDS=$${FUZZ_SECONDS:-600} sh tests/fuzz/run.sh

bench: deps
	$(Q)$(MAKE) all
	$(Q)$(MAKE) -C user bench-run

# A VM target's kernel, fetched where make deps does not (7.2).
vm-kernel: deps
	$(Q)sh mk/kernels.sh --fetch $(or $(VM_KERNEL),6.1)

vmtest: vm-kernel
	$(Q)$(MAKE) all
	$(Q)sh tests/vm/run.sh

# Debian's 6.1 with KASAN, kmemleak and lockdep, built once per machine and
# cached outside the repo (mk/debug-kernel.sh); the VM suite on it.
debug-kernel: deps
	$(Q)sh mk/debug-kernel.sh >/dev/null

vmtest-debug: deps
	$(Q)$(MAKE) all
	$(Q)sh tests/vm-debug/run.sh

# The ABI fuzzer on the debug kernel, only the load and fuzz suites; the
# guest gets FUZZ_SECONDS plus 25 minutes (boot, kmemleak) before qemu is
# stopped. FUZZ_SEED replays a seed.
fuzz-kmod: deps
	$(Q)$(MAKE) all
	$(Q)s=$${FUZZ_SECONDS:-600}; \
	VM_APPEND="vmsuites=load,fuzz vmfuzz=$$s$${FUZZ_SEED:+ vmfuzzseed=$$FUZZ_SEED}" \
	VM_TIMEOUT=$$((s + 1500)) VM_OUT=$(BUILD)/vm-fuzz-kmod sh tests/vm-debug/run.sh

vmbench: vm-kernel
	$(Q)$(MAKE) all
	$(Q)sh tests/vm/run.sh --bench

vmbench-ab: vm-kernel
	$(Q)$(MAKE) all
	$(Q)sh tests/vm/run.sh --ab $(or $(AB),$(error AB=REV: the git revision whose tapx to compare with))

vmbench-vhost: deps
	$(Q)$(MAKE) all
	$(Q)sh tests/vm/vhost-boots.sh

vmprofile: vm-kernel
	$(Q)$(MAKE) all
	$(Q)sh tests/vm/run.sh --profile

clean:
	$(call msg,CLEAN,build)
	$(Q)rm -rf $(BUILD)
