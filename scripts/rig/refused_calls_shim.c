/*
 * LD_PRELOAD shim for scripts/syscall-check: the C library calls that systemd/passtapd.service's
 * SystemCallFilter= refuses on purpose fail here with EPERM (SystemCallErrorNumber=EPERM), as
 * they do under the unit, so the integration suites show that passtapd copes without them.
 *
 * setpriority: in @resources, which the unit leaves out. libdispatch calls it to set each worker
 * thread's nice value from its quality of service, and carries on when it fails (it would log each
 * failure to syslog; the unit's Environment=LIBDISPATCH_LOG=NO turns that off).
 *
 * fchown: in @privileged, which the unit leaves out (only chown is let back in, for the socket's
 * group). SQLite (the forwarding outbox, sqlite-nio's copy) gives its -wal and -shm files the
 * database file's owner, but only when it runs as root (its robust_fchown checks geteuid()), and
 * ignores a failure. Under the unit passtapd is never root; the suites run it as root, so here
 * the call fails as the filter would refuse it, and the forwarding scenarios show the outbox works.
 */
#include <errno.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>

int setpriority(__priority_which_t which, id_t who, int prio)
{
    (void)which;
    (void)who;
    (void)prio;
    errno = EPERM;
    return -1;
}

int fchown(int fd, uid_t owner, gid_t group)
{
    (void)fd;
    (void)owner;
    (void)group;
    errno = EPERM;
    return -1;
}
