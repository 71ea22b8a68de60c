/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* ELF files changed for a test: what a binary holds beside what lockstall reads. */
#ifndef LOCKSTALL_TEST_ELF_EDIT_H
#define LOCKSTALL_TEST_ELF_EDIT_H

#include <stddef.h>

/*
 * Add a section of size zero bytes to the ELF file path (objcopy; the test
 * fails if it cannot): SHT_NOTE when name starts with ".note", else
 * PROGBITS, outside every segment.
 */
void elf_edit__add_section(const char *path, const char *name, size_t size);

#endif /* LOCKSTALL_TEST_ELF_EDIT_H */
