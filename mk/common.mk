# Shared by every Makefile of the project: quiet rules and the build tree.
# `make V=1` prints the commands.

# Expanded now: later includes (the compiler's .d files) change MAKEFILE_LIST.
ifndef TOP
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
endif

# `make test SANITIZE=1`: userspace (user/, tests/*) with ASan + UBSan,
# built apart in build/sanitize so objects of both kinds never mix. Any
# report fails the program with status 86 (LeakSanitizer included), which
# no test expects. BPF objects and the module are built with their own
# flags and are not affected.
ifeq ($(SANITIZE),1)
BUILD ?= $(TOP)/build/sanitize
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
export SANITIZE
export ASAN_OPTIONS ?= detect_leaks=1:exitcode=86
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1:exitcode=86
endif
BUILD ?= $(TOP)/build

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' '$(1)' '$(patsubst $(BUILD)/%,%,$(2))'
MAKEFLAGS += --no-print-directory
endif

CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Wno-unused-parameter -std=gnu11 -I$(TOP) -I$(BUILD)
CFLAGS += $(SANITIZE_FLAGS)
LDFLAGS += $(SANITIZE_FLAGS)
LIBBPF_LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
# libxml2: the nwfilter importer reads libvirt's filters with it.
XML_CFLAGS := $(shell pkg-config --cflags libxml-2.0 2>/dev/null || echo -I/usr/include/libxml2)
XML_LIBS := $(shell pkg-config --libs libxml-2.0 2>/dev/null || echo -lxml2)
