/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * exit.h - the exit codes of the programs built on the library: the input
 * was wrong (fix the command or the file) or the system refused or failed
 * (privileges, kernel support, bpffs). The library never returns them: it
 * returns -errno and says whose fault it was (error.h); each program maps
 * that to its exit code (the CLI: exit_code() in cli/common.h).
 */
#ifndef TA_EXIT_H
#define TA_EXIT_H

#define EXIT_OK 0
#define EXIT_USER 1
#define EXIT_SYSTEM 2

#endif /* TA_EXIT_H */
