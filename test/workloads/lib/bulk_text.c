// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libbulkN.so: a shared object of BULK_TEXT_BYTES of code and nothing
 * else, built once per N (BULK_ID) so each has its own build-id.  Preloaded
 * by the stacks end-to-end suite: a process that maps more executable file
 * bytes than lockstall's symbol memory holds, as a postgres backend with
 * its forty libraries does, still has its frames named.
 *
 * libbulkbig.so (BULK_CALLS) also takes the process's mmap() and munmap()
 * (through syscall()), so its stalls' stacks pass through a file larger
 * than half of the symbol memory, as one through a 70 MB libduckdb does.
 */
#ifndef BULK_ID
#error "build with -DBULK_ID=N"
#endif

#ifndef BULK_TEXT_BYTES
#define BULK_TEXT_BYTES 3145728
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

__asm__(".text\n"
	".globl bulk_text_" STR(BULK_ID) "\n"
	".type bulk_text_" STR(BULK_ID) ", @function\n"
	"bulk_text_" STR(BULK_ID) ":\n"
	".fill " STR(BULK_TEXT_BYTES) ", 1, 0x90\n"
	"ret\n"
	".size bulk_text_" STR(BULK_ID) ", . - bulk_text_" STR(BULK_ID) "\n");

#ifdef BULK_CALLS
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	return (int)syscall(SYS_munmap, addr, len);
}
#endif
