#ifndef RECORDKIT_CSHIMS_H
#define RECORDKIT_CSHIMS_H
#include <stdint.h>
#include <sys/types.h>

/// Monotonic clock in nanoseconds (CLOCK_MONOTONIC).
uint64_t cshim_monotonic_ns(void);
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
#endif
