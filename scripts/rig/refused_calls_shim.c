/*
 * LD_PRELOAD shim for scripts/syscall-check: the C library calls that systemd/passtapd.service's
 * SystemCallFilter= refuses on purpose fail here with EPERM (SystemCallErrorNumber=EPERM), as
 * they do under the unit, so the integration suites show that passtapd copes without them.
 *
 * setpriority: in @resources, which the unit leaves out. libdispatch calls it to set each worker
 * thread's nice value from its quality of service, and carries on when it fails (it would log each
 * failure to syslog; the unit's Environment=LIBDISPATCH_LOG=NO turns that off).
 */
#include <errno.h>
#include <sys/resource.h>

int setpriority(__priority_which_t which, id_t who, int prio)
{
    (void)which;
    (void)who;
    (void)prio;
    errno = EPERM;
    return -1;
}
