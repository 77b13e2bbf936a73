#define _GNU_SOURCE
#include "cshims.h"
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <signal.h>
#include <spawn.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <malloc.h>

int cshim_sleep_until_ns(uint64_t deadline_ns) {
    struct timespec ts = { .tv_sec = (time_t)(deadline_ns / 1000000000ull),
                           .tv_nsec = (long)(deadline_ns % 1000000000ull) };
    int rc;
    do { rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL); } while (rc == EINTR);
    return rc;
}

int cshim_memfd_create(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

static int fill_addr(struct sockaddr_un *addr, const char *path) {
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr->sun_path) { errno = ENAMETOOLONG; return -1; }
    strcpy(addr->sun_path, path);
    return 0;
}

int cshim_unix_listen(const char *path, int backlog, unsigned int mode) {
    struct sockaddr_un addr;
    if (fill_addr(&addr, path) < 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    mode_t old = umask(0777 & ~mode);
    int rc = bind(fd, (struct sockaddr *)&addr, sizeof addr);
    umask(old);
    if (rc < 0 || chmod(path, mode) < 0 || listen(fd, backlog) < 0) {
        int e = errno; close(fd); errno = e; return -1;
    }
    return fd;
}

int cshim_unix_connect(const char *path) {
    struct sockaddr_un addr;
    if (fill_addr(&addr, path) < 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) { int e = errno; close(fd); errno = e; return -1; }
    return fd;
}

long cshim_peer_uid(int fd) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) return -1;
    return (long)cred.uid;
}

int cshim_send_fd(int sock, int fd_to_send) {
    char byte = 'F';
    struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
    union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
    memset(&u, 0, sizeof u);
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET; c->cmsg_type = SCM_RIGHTS; c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd_to_send, sizeof(int));
    return sendmsg(sock, &msg, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

int cshim_recv_fd(int sock) {
    char byte;
    struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
    union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
    if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) <= 0) return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_RIGHTS) { errno = EPROTO; return -1; }
    int fd; memcpy(&fd, CMSG_DATA(c), sizeof(int));
    return fd;
}

int cshim_accept_cloexec(int listen_fd) { return accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC); }

/* Extension host (Sources/RecordKitExtensions) and SDK (Sources/RecordKitExtensionSDK). */

ssize_t cshim_send_packet(int sock, const void *buf, size_t len, int fd) {
    struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
    union { char buf[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } u;
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (fd >= 0) {
        memset(&u, 0, sizeof u);
        msg.msg_control = u.buf;
        msg.msg_controllen = sizeof u.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET; c->cmsg_type = SCM_RIGHTS; c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof(int));
    }
    ssize_t n;
    do { n = sendmsg(sock, &msg, MSG_NOSIGNAL); } while (n < 0 && errno == EINTR);
    return n;
}

ssize_t cshim_recv_packet(int sock, void *buf, size_t cap, int *fd, int *truncated) {
    struct iovec iov = { .iov_base = buf, .iov_len = cap };
    union { char buf[CMSG_SPACE(4 * sizeof(int))]; struct cmsghdr align; } u;
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
    *fd = -1;
    *truncated = 0;
    ssize_t n;
    do { n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC); } while (n < 0 && errno == EINTR);
    if (n < 0) return -1;
    if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) *truncated = 1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int received; memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (*fd < 0) *fd = received; else close(received);  /* one descriptor per message */
        }
    }
    return n;
}

int cshim_seqpacket_pair(int fds[2]) {
    return socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds);
}

/* What both spawns share: the child starts with no signal blocked, every signal at its default,
 * in a process group of its own; `actions` and `attr` are destroyed. Returns posix_spawn's code. */
static int spawn_reset(const char *path, char *const argv[], char *const envp[],
                       posix_spawn_file_actions_t *actions, posix_spawnattr_t *attr, int *pid_out) {
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(attr, &none);
    posix_spawnattr_setsigdefault(attr, &all);
    posix_spawnattr_setpgroup(attr, 0);
    posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    pid_t pid = 0;
    int rc = posix_spawn(&pid, path, actions, attr, argv, envp);
    posix_spawn_file_actions_destroy(actions);
    posix_spawnattr_destroy(attr);
    if (rc == 0) *pid_out = (int)pid;
    return rc;
}

int cshim_spawn_with_socket(const char *path, char *const argv[], char *const envp[], int sock, int *pid_out) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attr);
    if (rc != 0) { posix_spawn_file_actions_destroy(&actions); return rc; }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, 2, 1);  /* the host's stdout is not the extension's */
    if (sock == 3) {
        /* dup2 onto itself would keep close-on-exec: go through a spare descriptor. */
        posix_spawn_file_actions_adddup2(&actions, 3, 4);
        posix_spawn_file_actions_adddup2(&actions, 4, 3);
    } else {
        posix_spawn_file_actions_adddup2(&actions, sock, 3);
    }
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);
    return spawn_reset(path, argv, envp, &actions, &attr, pid_out);
}

int cshim_spawn_with_output(const char *path, char *const argv[], char *const envp[], int out, int *pid_out) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attr);
    if (rc != 0) { posix_spawn_file_actions_destroy(&actions); return rc; }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out, 1);
    posix_spawn_file_actions_adddup2(&actions, out, 2);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    return spawn_reset(path, argv, envp, &actions, &attr, pid_out);
}

int cshim_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

uint64_t cshim_thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int cshim_disable_transparent_huge_pages(void) {
    return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}

int cshim_lower_thread_priority(int nice_value, int io_level) {
    pid_t tid = (pid_t)syscall(SYS_gettid);
    int rc = setpriority(PRIO_PROCESS, (id_t)tid, nice_value);
    /* IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, level), IOPRIO_WHO_PROCESS (a tid names one thread). */
    long io = syscall(SYS_ioprio_set, 1, (int)tid, (2 << 13) | (io_level & 7));
    return (rc == 0 && io == 0) ? 0 : -1;
}

int cshim_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

int cshim_fix_malloc_mmap_threshold(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

int cshim_malloc_trim(void) {
    return malloc_trim(0);
}

void cshim_malloc_usage(uint64_t *in_use, uint64_t *free_held, uint64_t *mapped) {
    struct mallinfo2 info = mallinfo2();
    *in_use = (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
    *free_held = (uint64_t)info.fordblks;
    *mapped = (uint64_t)info.hblkhd;
}
