/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What every part of lockstall.bpf.c starts from: the kernel types
 * (vmlinux_min.h), libbpf's helpers, the record ABI and the one read-only
 * config the loader fills in before the load (struct ls_bpf_config, abi.h:
 * a constant to the verifier, which drops what a setting turns off).
 */
#ifndef LOCKSTALL_CONFIG_BPF_H
#define LOCKSTALL_CONFIG_BPF_H

#include "vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <lockstall/abi.h>

const volatile struct ls_bpf_config cfg = {};

/* One load or store the compiler keeps as written (shared words, values read back). */
#define LS_ONCE(x) (*(volatile typeof(x) *)&(x))
#define ls_barrier() asm volatile("" ::: "memory")

#endif /* LOCKSTALL_CONFIG_BPF_H */
