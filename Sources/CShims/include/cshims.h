#ifndef RECORDKIT_CSHIMS_H
#define RECORDKIT_CSHIMS_H
#include <stdint.h>
#include <sys/types.h>

/// Sleeps until an absolute CLOCK_MONOTONIC deadline (no drift). Returns 0 or an errno.
int cshim_sleep_until_ns(uint64_t deadline_ns);
/// Creates an anonymous shared-memory file (memfd_create with MFD_CLOEXEC). -1 and errno on failure.
int cshim_memfd_create(const char *name);
/// Creates, binds and listens on a Unix stream socket at `path`; the socket file gets `mode`. -1 and errno on failure.
int cshim_unix_listen(const char *path, int backlog, unsigned int mode);
/// Connects a Unix stream socket to `path`. -1 and errno on failure.
int cshim_unix_connect(const char *path);
/// The uid of the peer of a connected Unix socket (SO_PEERCRED). -1 on failure.
long cshim_peer_uid(int fd);
/// Sends `fd_to_send` with one byte over a Unix socket (SCM_RIGHTS). -1 and errno on failure.
int cshim_send_fd(int sock, int fd_to_send);
/// Receives a descriptor sent with cshim_send_fd. -1 and errno on failure.
int cshim_recv_fd(int sock);
/// Accepts a connection with close-on-exec set (accept4). -1 and errno on failure.
int cshim_accept_cloexec(int listen_fd);
/// Sends one datagram of a SOCK_SEQPACKET socket, with descriptor `fd` attached (SCM_RIGHTS)
/// unless `fd` < 0. Never raises SIGPIPE. Bytes sent, or -1 and errno.
ssize_t cshim_send_packet(int sock, const void *buf, size_t len, int fd);
/// Receives one datagram into `buf` (`cap` bytes). `*fd` gets the descriptor attached to it
/// (close-on-exec) or -1; further descriptors are closed. `*truncated` is 1 when the datagram
/// or its descriptors did not fit. Bytes received, 0 at end of stream, -1 and errno.
ssize_t cshim_recv_packet(int sock, void *buf, size_t cap, int *fd, int *truncated);
/// A connected pair of SOCK_SEQPACKET Unix sockets, both close-on-exec. 0, or -1 and errno.
int cshim_seqpacket_pair(int fds[2]);
/// Spawns `path` with `sock` as descriptor 3 (inherited), stdin /dev/null, stdout onto the
/// caller's stderr, every other descriptor closed, signals unblocked and at their defaults, in a
/// process group of its own. 0 and `*pid_out`, or an errno value.
int cshim_spawn_with_socket(const char *path, char *const argv[], char *const envp[], int sock, int *pid_out);
/// Spawns `path` with stdin /dev/null and stdout and stderr onto `out`, every other descriptor
/// closed, signals unblocked and at their defaults, in a process group of its own (so a timeout
/// can end it and everything it started). 0 and `*pid_out`, or an errno value.
int cshim_spawn_with_output(const char *path, char *const argv[], char *const envp[], int out, int *pid_out);
/// A pipe whose both ends are close-on-exec (pipe2 with O_CLOEXEC). 0, or -1 and errno.
int cshim_pipe_cloexec(int fds[2]);
/// CPU time of the calling thread in nanoseconds (CLOCK_THREAD_CPUTIME_ID).
uint64_t cshim_thread_cpu_ns(void);
/// Opts this process (and the processes it starts) out of transparent huge pages
/// (prctl PR_SET_THP_DISABLE). 0, or -1 and errno.
int cshim_disable_transparent_huge_pages(void);
/// Lowers the calling thread only (not the process) to `nice_value` (setpriority on its tid) and
/// to the best-effort I/O class at `io_level` (0 highest .. 7 lowest; ioprio_set on its tid):
/// what upload threads use so capture and encoding keep the machine (docs/UPLOADS.md).
/// 0, or -1 and errno of the first call that failed.
int cshim_lower_thread_priority(int nice_value, int io_level);
/// mallopt(M_ARENA_MAX, count): at most `count` malloc arenas; returns 1 on success.
int cshim_limit_malloc_arenas(int count);
/// mallopt(M_MMAP_THRESHOLD, bytes): blocks of `bytes` or more get a mapping of their own, and the
/// threshold stays there (glibc otherwise raises it, up to 32 MB, each time such a block is
/// freed); returns 1 on success.
int cshim_fix_malloc_mmap_threshold(int bytes);
/// malloc_trim(0): gives free pages of every arena back to the kernel; returns 1 if any went.
int cshim_malloc_trim(void);
/// mallinfo2() over every arena: bytes the program holds (arena chunks in use plus chunks of
/// their own mapping), bytes the arenas hold free, and the part of `in_use` in own mappings.
void cshim_malloc_usage(uint64_t *in_use, uint64_t *free_held, uint64_t *mapped);
#endif
