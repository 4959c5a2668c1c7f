#!/usr/bin/env python3
"""The system calls a unit's SystemCallFilter= lets through, and those a trace made outside it.

    scripts/syscall_filter.py check [--unit systemd/passtapd.service] TRACE_OR_FOLDER...
    scripts/syscall_filter.py expand [--unit systemd/passtapd.service]

`check` reads strace output (`strace -f -o FILE`, one line per call, each starting with the thread
id; a folder means every *.trace in it), lists every system call seen with its count, and exits 1
naming those the filter would refuse. `expand` prints the allowed (or, for a deny list, the denied)
names. scripts/syscall-check runs `check` on the traces of the integration suites.

A passtapd that opened an Internet socket either bound `[web] listen` or `[metrics] listen`
itself, or connected to a forwarding sink (a webhook, PostgreSQL, their DNS resolver). Under the
unit the listeners' sockets are made by the socket units that systemd/tcp-listeners.conf pulls in,
and passtapd adopts them: the rig passes none, so a trace whose Internet sockets were never
connected has its AF_INET/AF_INET6 socket() calls left unjudged. A trace that connected over IP
needs systemd/forwarding.conf: its socket families are judged against the unit with that drop-in
(`--forwarding-dropin`), every other trace's against the unit alone. Neither drop-in changes
SystemCallFilter=, so the system calls of every trace are judged against the unit's filter.

The filter is read the way systemd 252 reads it (systemd.exec(5), SystemCallFilter=):
- the lines are taken in order; an empty assignment resets the filter;
- the first non-empty line sets the mode: an allow list (and then systemd adds @default, which
  every process needs to start), or, starting with "~", a deny list;
- each later item adds to that list when it has the list's polarity, and removes from it when it
  has the other ("~@resources" after "@system-service" takes @resources out again);
- "@group" names expand as `systemd-analyze syscall-filter @group` lists them, nested groups
  included; ":ERRNO" after a name only says how a refusal fails, and is dropped here.
"""

import argparse
import collections
import functools
import os
import re
import subprocess
import sys

DEFAULT_UNIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "systemd", "passtapd.service")
DEFAULT_FORWARDING_DROPIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "systemd", "forwarding.conf")
INTERNET_FAMILIES = {"AF_INET", "AF_INET6"}

# "1234  openat(AT_FDCWD, ..." or "1234  <... openat resumed>..." (the second half of a call that
# another thread interrupted in the trace). Anything else (signals, "+++ exited") is not a call.
CALL = re.compile(r"^\d+\s+([A-Za-z0-9_]+)\(")
RESUMED = re.compile(r"^\d+\s+<\.\.\. ([A-Za-z0-9_]+) resumed>")
NOT_A_CALL = re.compile(r"^\d+\s+(---|\+\+\+|<\.\.\.)")
# A process that runs another program, and the parent of each new thread or process:
# "12 clone3({...}, 88) = 13", "12 <... clone resumed>...) = 13", fork and vfork alike.
EXECVE = re.compile(r'^(\d+)\s+execve\("([^"]*)"')
SPAWN = re.compile(r"^(\d+)\s+(?:<\.\.\. )?(?:clone3?|v?fork)\b.*= (\d+)\s*$")
# Signals that end a process by default: a crash (SIGSYS would be a seccomp refusal).
FATAL_SIGNAL = re.compile(r"^(\d+)\s+--- (SIG(?:ILL|SEGV|BUS|ABRT|FPE|SYS|TRAP)) ")
# The calls whose arguments the unit also restricts (RestrictAddressFamilies=,
# MemoryDenyWriteExecute=): systemd adds seccomp rules on socket()'s family and on executable
# memory (mmap with PROT_WRITE and PROT_EXEC together; mprotect or pkey_mprotect adding PROT_EXEC).
SOCKET = re.compile(r"^\d+\s+socket\((AF_[A-Z0-9]+|\d+)")
# An outgoing connection's family: "7 connect(12, {sa_family=AF_INET, sin_port=htons(5432), ...".
CONNECT = re.compile(r"^\d+\s+connect\(\d+, \{sa_family=(AF_[A-Z0-9]+)")
MMAP = re.compile(r"^\d+\s+mmap\([^,]*, [^,]*, ([A-Z_|]+)")
MPROTECT = re.compile(r"^\d+\s+(?:pkey_)?mprotect\([^,]*, [^,]*, ([A-Z_|]+)")


@functools.lru_cache(maxsize=None)
def group(name):
    """The system calls of `@name`, nested groups expanded (from systemd-analyze itself)."""
    output = subprocess.run(
        ["systemd-analyze", "syscall-filter", "--no-pager", name],
        check=True, capture_output=True, text=True,
    ).stdout
    members = set()
    lines = output.splitlines()
    if not lines or lines[0].strip() != name:
        raise ValueError(f"systemd-analyze does not know the group {name}: {output!r}")
    for line in lines[1:]:
        item = line.strip()
        if not item or item.startswith("#"):
            continue
        if not line.startswith((" ", "\t")):
            break  # the next group (systemd-analyze prints only the one asked for, but be safe)
        members |= group(item) if item.startswith("@") else {item}
    return frozenset(members)


def names(item):
    """The system calls one filter item stands for."""
    item = item.split(":", 1)[0]
    return group(item) if item.startswith("@") else frozenset([item])


def unit_settings(unit_text):
    """{(section, key): [values in order]} of a unit file (comments and blank lines skipped)."""
    found = {}
    section = None
    for raw in unit_text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        key, separator, value = line.partition("=")
        if not separator:
            raise ValueError(f"not a key=value line: {raw!r}")
        found.setdefault((section, key.strip()), []).append(value.strip())
    return found


def service_values(unit_text, wanted):
    """The values of every `wanted`= in the unit's [Service] section, in order."""
    return unit_settings(unit_text).get(("Service", wanted), [])


def filter_lines(unit_text):
    """The values of every SystemCallFilter= in the unit's [Service] section, in order."""
    return service_values(unit_text, "SystemCallFilter")


def address_families(unit_text):
    """(allow_list, families) of RestrictAddressFamilies=, combined as systemd does; None: unset."""
    allow_list, families = None, set()
    for value in service_values(unit_text, "RestrictAddressFamilies"):
        if not value or value == "none":
            allow_list, families = (None, set()) if not value else (True, set())
            continue
        invert = value.startswith("~")
        items = set(value[1:].split() if invert else value.split())
        if allow_list is None:
            allow_list = not invert
        families = families | items if invert != allow_list else families - items
    return allow_list, families


def argument_refusals(unit_text, arguments):
    """What the unit's argument rules would refuse among `arguments` (from calls())."""
    refusals = []
    allow_list, families = address_families(unit_text)
    if allow_list is not None:
        for family in sorted(arguments["socket"]):
            if (family in families) != allow_list:
                refusals.append(f"socket({family}) (RestrictAddressFamilies=)")
    deny_wx = service_values(unit_text, "MemoryDenyWriteExecute")
    if deny_wx and deny_wx[-1] in ("yes", "true", "1", "on"):
        refusals += [f"{call} (MemoryDenyWriteExecute=)" for call in sorted(arguments["exec_memory"])]
    return refusals


def expand(lines):
    """(allow_list, names) for SystemCallFilter= values, as systemd combines them."""
    allow_list = None
    selected = set()
    for value in lines:
        if not value:
            allow_list, selected = None, set()
            continue
        invert = value.startswith("~")
        items = value[1:].split() if invert else value.split()
        if allow_list is None:
            allow_list = not invert
            if allow_list:
                selected |= group("@default")
        adds = invert != allow_list
        for item in items:
            if adds:
                selected |= names(item)
            else:
                selected -= names(item)
    return allow_list, frozenset(selected)


def refused(allow_list, selected, observed):
    """The observed names the filter would refuse."""
    if allow_list is None:
        return []
    return sorted(name for name in observed if (name in selected) != allow_list)


def trace_files(paths):
    files = []
    for path in paths:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".trace"))
        else:
            files.append(path)
    return files


def calls(files, arguments=None, others=None, fatal=None):
    """Counter of passtapd's system calls in strace -f output, and how many lines were not understood.

    With `arguments` (a dict), also records there the socket families asked for ("socket"), the
    families connected to ("connect"), and the calls that would make memory writable and
    executable, or executable later ("exec_memory").
    A process passtapd started that exec'd another program (swift-backtrace, Swift's crash
    reporter, on a crash) is counted apart, in `others` (program name -> Counter) when given: the
    unit's filter applies to it too, but it is not passtapd. `fatal` (a list) gets
    (trace file, thread, signal) for each signal that kills a process by default, as passtapd's
    threads received them: a crash during the run.
    """
    counts = collections.Counter()
    unknown = 0
    if arguments is not None:
        arguments.setdefault("socket", set())
        arguments.setdefault("connect", set())
        arguments.setdefault("exec_memory", set())
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as trace:
            lines = trace.readlines()
        program = programs(lines)
        for line in lines:
            match = CALL.match(line)
            if match:
                name = program.get(int(line.split(None, 1)[0]), "passtapd")
                if name == "passtapd":
                    counts[match.group(1)] += 1
                    if arguments is not None:
                        record_arguments(line, arguments)
                elif others is not None:
                    others.setdefault(name, collections.Counter())[match.group(1)] += 1
            elif not RESUMED.match(line) and not NOT_A_CALL.match(line) and line.strip():
                unknown += 1
            else:
                signal = FATAL_SIGNAL.match(line)
                if signal and fatal is not None:
                    thread = int(signal.group(1))
                    if program.get(thread, "passtapd") == "passtapd":
                        fatal.append((os.path.basename(path), thread, signal.group(2)))
    return counts, unknown


def programs(lines):
    """{pid: program} for the processes of one trace that exec'd something other than passtapd,
    and for the threads and children they started (passtapd's own are left out)."""
    execs = {}
    parent = {}
    for line in lines:
        execve = EXECVE.match(line)
        if execve and not os.path.basename(execve.group(2)).startswith("passtapd"):
            execs.setdefault(int(execve.group(1)), os.path.basename(execve.group(2)))
        spawned = SPAWN.match(line)
        if spawned:
            parent.setdefault(int(spawned.group(2)), int(spawned.group(1)))
    found = {}
    for pid in set(parent) | set(execs):
        seen, current = set(), pid
        while current not in execs and current in parent and current not in seen:
            seen.add(current)
            current = parent[current]
        if current in execs:
            found[pid] = execs[current]
    return found


def record_arguments(line, arguments):
    socket = SOCKET.match(line)
    if socket:
        arguments["socket"].add(socket.group(1))
        return
    connect = CONNECT.match(line)
    if connect:
        arguments["connect"].add(connect.group(1))
        return
    mmap = MMAP.match(line)
    if mmap and {"PROT_WRITE", "PROT_EXEC"} <= set(mmap.group(1).split("|")):
        arguments["exec_memory"].add(f"mmap({mmap.group(1)})")
        return
    mprotect = MPROTECT.match(line)
    if mprotect and "PROT_EXEC" in mprotect.group(1).split("|"):
        arguments["exec_memory"].add(f"mprotect({mprotect.group(1)})")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["check", "expand"])
    parser.add_argument("--unit", default=DEFAULT_UNIT)
    parser.add_argument("--forwarding-dropin", default=DEFAULT_FORWARDING_DROPIN)
    parser.add_argument("traces", nargs="*")
    args = parser.parse_intermixed_args(argv)
    with open(args.unit, encoding="utf-8") as unit:
        unit_text = unit.read()
    allow_list, selected = expand(filter_lines(unit_text))
    if args.command == "expand":
        print("allow list" if allow_list else "deny list" if allow_list is False else "no filter")
        print(" ".join(sorted(selected)))
        return 0
    files = trace_files(args.traces)
    with open(args.forwarding_dropin, encoding="utf-8") as dropin:
        forwarding_unit_text = unit_text + "\n" + dropin.read()
    arguments, others, fatal = {}, {}, []
    counts, unknown = collections.Counter(), 0
    argument_outside, outbound, listening = [], 0, 0
    for path in files:
        file_arguments = {}
        file_counts, file_unknown = calls([path], file_arguments, others, fatal)
        counts += file_counts
        unknown += file_unknown
        for key, values in file_arguments.items():
            arguments.setdefault(key, set()).update(values)
        judged_text = unit_text
        if file_arguments["connect"] & INTERNET_FAMILIES:
            outbound += 1
            judged_text = forwarding_unit_text
        elif file_arguments["socket"] & INTERNET_FAMILIES:
            # Listeners only: under the unit the socket units make these sockets.
            listening += 1
            file_arguments["socket"] -= INTERNET_FAMILIES
        for refusal in argument_refusals(judged_text, file_arguments):
            if refusal not in argument_outside:
                argument_outside.append(refusal)
    if not counts:
        print(f"syscall-check: no system call in {len(files)} trace file(s): nothing was traced", file=sys.stderr)
        return 1
    outside = refused(allow_list, selected, counts)
    print(f"syscall-check: {len(files)} trace(s), {sum(counts.values())} calls, {len(counts)} distinct system calls:")
    print("  " + " ".join(f"{name}({counts[name]})" for name in sorted(counts)))
    if unknown:
        print(f"syscall-check: {unknown} trace line(s) were neither a call nor a signal (not counted)")
    print(f"syscall-check: socket families: {' '.join(sorted(arguments['socket'])) or 'none'}")
    if listening:
        print(f"syscall-check: {listening} trace(s) bound [web] or [metrics] listen themselves (the rig passes no "
              "sockets): under the unit the socket units of tcp-listeners.conf make them, so their Internet "
              "socket() calls are not judged")
    if outbound:
        print(f"syscall-check: {outbound} trace(s) connected over IP (a forwarding sink): their socket families "
              f"are judged with {os.path.basename(args.forwarding_dropin)}")
    for program, program_counts in sorted(others.items()):
        # Not passtapd: reported, not judged (swift-backtrace runs only once passtapd has crashed).
        print(f"syscall-check: not counted above: {sum(program_counts.values())} calls of {program}, which "
              f"passtapd started; the filter would refuse it: "
              f"{' '.join(refused(allow_list, selected, program_counts)) or 'nothing'}")
    for (trace_name, signal), count in sorted(collections.Counter((t, sig) for t, _, sig in fatal).items()):
        print(f"syscall-check: WARNING: passtapd got {signal} ({count}x) in {trace_name}: it crashed")
    unit_name = os.path.basename(args.unit)
    if outside:
        print(f"syscall-check: FAILED: {len(outside)} system call(s) outside {unit_name}'s "
              f"SystemCallFilter: {' '.join(outside)}")
    if argument_outside:
        print(f"syscall-check: FAILED: {unit_name} would refuse: {'; '.join(argument_outside)}")
    if outside or argument_outside:
        return 1
    print(f"syscall-check: every one is inside {unit_name}'s SystemCallFilter, RestrictAddressFamilies "
          "and MemoryDenyWriteExecute")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
