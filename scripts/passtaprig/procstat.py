"""A process's CPU time and memory, read from /proc."""

import os


def cpu_ns_by_thread(pid):
    """CPU time (ns) of each live thread of pid, by thread id (/proc/PID/task/*/schedstat)."""
    times = {}
    for task in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, task)) as f:
                times[task] = int(f.read().split()[0])
        except FileNotFoundError:  # the thread ended while we listed them
            pass
    return times


def cpu_ns_since(pid, before):
    """CPU time the threads of pid used since `before` (a cpu_ns_by_thread result). Threads that
    ended in between are left out rather than subtracted, so the figure is never negative."""
    return sum(ns - before.get(task, 0) for task, ns in cpu_ns_by_thread(pid).items())


def peak_rss_kib(pid):
    """The peak resident set size of pid (VmHWM), in KiB; 0 when /proc does not say."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0
