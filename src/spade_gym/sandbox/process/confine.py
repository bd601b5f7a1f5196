"""Kernel-level confinement for worker processes: Landlock and a seccomp filter.

These are the last line of defence, for the case where a program gets past the
language layer and runs arbitrary Python in its worker. They are applied by the
worker itself right after fork, before any program code exists in the process:

* **Landlock** (Linux >= 5.13, unprivileged): the worker may *read* files only below
  the Python installation and import paths (so a lazy import still works) and may
  create, write, remove or rename nothing anywhere; where the kernel supports it,
  TCP bind/connect are refused and signals to processes outside the worker's own
  Landlock domain (the host, other workers) are blocked.
* **seccomp** (x86-64 and aarch64): an allow-list of the system calls the runtime
  makes while serving a program; everything else (sockets, ``execve``, ``ptrace``,
  ``fork``/``clone``, pidfds, namespaces, ``io_uring``, ``bpf``...) fails with ``EPERM``,
  and signals may only target the worker itself.

Both degrade gracefully: on a kernel or architecture without them the worker still
runs, with the other limits (uid ``nobody`` under root, rlimits, empty read-only
working directory, clean environment). :func:`status` reports what was applied.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

_libc = None


def _syscall():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.syscall.restype = ctypes.c_long
        _libc.prctl.restype = ctypes.c_int
    return _libc


# ----------------------------------------------------------------------------- prctl

PR_SET_PDEATHSIG = 1
PR_GET_PDEATHSIG = 2
PR_SET_NO_NEW_PRIVS = 38
PR_GET_NO_NEW_PRIVS = 39


def prctl_checked(option: int, arg: int) -> bool:
    """Call prctl and say whether it took effect (read back where the kernel allows)."""
    try:
        libc = _syscall()
    except OSError:
        return False
    if libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) != 0:
        return False
    if option == PR_SET_NO_NEW_PRIVS:
        return libc.prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1
    if option == PR_SET_PDEATHSIG:
        value = ctypes.c_int(0)
        return libc.prctl(PR_GET_PDEATHSIG, ctypes.byref(value), 0, 0, 0) == 0 and value.value == arg
    return True


# ----------------------------------------------------------------------------- identity

#: Workers of a root host each run as ``WORKER_UID_BASE + pid``: a uid no account has,
#: different for every live worker, so no worker can signal or ptrace another (or the
#: host) whatever the kernel's Landlock version.
WORKER_UID_BASE = 0x2000_0000


def isolate_identity(drop_privileges: bool) -> dict:
    """Give the calling worker an identity of its own; report what was done."""
    if not drop_privileges:
        return {"uid_isolation": "off (drop_privileges=False)"}
    if os.geteuid() != 0:
        return {"uid_isolation": "not root: workers share the host's uid"}
    uid = WORKER_UID_BASE + os.getpid()
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    return {"uid_isolation": "distinct uid per worker"}


# ----------------------------------------------------------------------------- landlock

_NR = {
    "x86_64": {"landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446},
    "aarch64": {"landlock_create_ruleset": 444, "landlock_add_rule": 445, "landlock_restrict_self": 446},
}
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_RULE_PATH_BENEATH = 1
_FS_READ = (1 << 2) | (1 << 3)  # READ_FILE | READ_DIR
_FS_BITS_BY_ABI = {1: 13, 2: 14, 3: 15, 4: 15, 5: 16}  # number of handled fs access bits


def landlock_abi() -> int:
    nrs = _NR.get(platform.machine())
    if not nrs:
        return 0
    libc = _syscall()
    abi = libc.syscall(nrs["landlock_create_ruleset"], None, ctypes.c_size_t(0),
                       ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION))
    return max(0, int(abi))


def apply_landlock(read_paths: list[str]) -> int:
    """Restrict the calling process; returns the ABI version applied (0 = unavailable)."""
    abi = landlock_abi()
    if abi <= 0:
        return 0
    nrs = _NR[platform.machine()]
    libc = _syscall()
    fs_bits = _FS_BITS_BY_ABI.get(abi, 16)
    handled_fs = (1 << fs_bits) - 1
    handled_net = 0b11 if abi >= 4 else 0  # BIND_TCP | CONNECT_TCP
    scoped = 0b11 if abi >= 6 else 0  # ABSTRACT_UNIX_SOCKET | SIGNAL
    if abi >= 6:
        attr = struct.pack("=QQQ", handled_fs, handled_net, scoped)
    elif abi >= 4:
        attr = struct.pack("=QQ", handled_fs, handled_net)
    else:
        attr = struct.pack("=Q", handled_fs)
    buf = ctypes.create_string_buffer(attr, len(attr))
    ruleset = libc.syscall(nrs["landlock_create_ruleset"], buf, ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return 0
    try:
        for path in sorted(set(read_paths)):
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                allowed = _FS_READ if os.path.isdir(path) else (1 << 2)
                rule = ctypes.create_string_buffer(struct.pack("=Qi", allowed, fd), 12)
                libc.syscall(nrs["landlock_add_rule"], ctypes.c_int(ruleset),
                             ctypes.c_int(_LANDLOCK_RULE_PATH_BENEATH), rule, ctypes.c_uint32(0))
            finally:
                os.close(fd)
        if libc.syscall(nrs["landlock_restrict_self"], ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            return 0
    finally:
        os.close(ruleset)
    return abi


# ----------------------------------------------------------------------------- seccomp

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

#: The system calls a worker makes once it serves a program — found by tracing the
#: benign corpus, every bundled environment and the limit paths (memory, recursion,
#: deadlines, CPU) — plus their close relatives (``stat``/``fstat``/``statx``...). Anything
#: else fails with EPERM. Signals are further limited by argument: see :func:`apply_seccomp`.
_ALLOWED_SYSCALLS = {
    "x86_64": {
        "read": 0, "write": 1, "open": 2, "close": 3, "stat": 4, "fstat": 5, "lstat": 6, "poll": 7,
        "lseek": 8, "mmap": 9, "mprotect": 10, "munmap": 11, "brk": 12, "rt_sigaction": 13,
        "rt_sigprocmask": 14, "rt_sigreturn": 15, "ioctl": 16, "pread64": 17, "readv": 19, "writev": 20,
        "access": 21, "select": 23, "sched_yield": 24, "mremap": 25, "mincore": 27, "madvise": 28,
        "dup": 32, "nanosleep": 35, "getitimer": 36, "setitimer": 38, "getpid": 39, "sendto": 44,
        "recvfrom": 45, "sendmsg": 46, "recvmsg": 47, "shutdown": 48, "exit": 60, "uname": 63,
        "fcntl": 72, "getcwd": 79, "readlink": 89, "getrlimit": 97, "getrusage": 98, "sysinfo": 99,
        "times": 100, "getuid": 102, "getgid": 104, "geteuid": 107, "getegid": 108, "getppid": 110,
        "getpgrp": 111, "getgroups": 115, "getresuid": 118, "getresgid": 120, "getpgid": 121,
        "getsid": 124, "sigaltstack": 131, "prctl": 157, "arch_prctl": 158, "setrlimit": 160,
        "gettid": 186, "time": 201, "futex": 202, "sched_getaffinity": 204, "getdents64": 217,
        "set_tid_address": 218, "restart_syscall": 219, "clock_gettime": 228, "clock_getres": 229,
        "clock_nanosleep": 230, "exit_group": 231, "openat": 257, "newfstatat": 262, "readlinkat": 267,
        "faccessat": 269, "pselect6": 270, "ppoll": 271, "set_robust_list": 273, "prlimit64": 302,
        "getcpu": 309, "getrandom": 318, "membarrier": 324, "statx": 332, "rseq": 334,
        "close_range": 436, "faccessat2": 439, "gettimeofday": 96,
    },
    "aarch64": {
        "getcwd": 17, "dup": 23, "fcntl": 25, "ioctl": 29, "faccessat": 48, "openat": 56, "close": 57,
        "getdents64": 61, "lseek": 62, "read": 63, "write": 64, "readv": 65, "writev": 66, "pread64": 67,
        "pselect6": 72, "ppoll": 73, "readlinkat": 78, "newfstatat": 79, "fstat": 80, "exit": 93,
        "exit_group": 94, "set_tid_address": 96, "futex": 98, "set_robust_list": 99, "nanosleep": 101,
        "getitimer": 102, "setitimer": 103, "clock_gettime": 113, "clock_getres": 114,
        "clock_nanosleep": 115, "sched_getaffinity": 123, "sched_yield": 124, "sigaltstack": 132,
        "rt_sigaction": 134, "rt_sigprocmask": 135, "rt_sigreturn": 139, "getresuid": 148,
        "getresgid": 150, "times": 153, "getpgid": 155, "getsid": 156, "getgroups": 158, "uname": 160,
        "getrlimit": 163, "setrlimit": 164, "getrusage": 165, "prctl": 167, "getcpu": 168,
        "gettimeofday": 169, "getpid": 172, "getppid": 173, "getuid": 174, "geteuid": 175, "getgid": 176,
        "getegid": 177, "gettid": 178, "sysinfo": 179, "sendto": 206, "recvfrom": 207, "shutdown": 210,
        "sendmsg": 211, "recvmsg": 212, "brk": 214, "munmap": 215, "mremap": 216, "mmap": 222,
        "mprotect": 226, "mincore": 232, "madvise": 233, "prlimit64": 261, "getrandom": 278,
        "membarrier": 283, "statx": 291, "rseq": 293, "close_range": 436, "faccessat2": 439,
    },
}
#: Signal-sending calls, allowed only with the worker's own pid as target (``kill`` also
#: with 0: its own process group, which holds only itself).
_SELF_SIGNAL_SYSCALLS = {
    "x86_64": {"kill": 62, "tkill": 200, "tgkill": 234},
    "aarch64": {"kill": 129, "tkill": 130, "tgkill": 131},
}

_BPF_LD_W_ABS = 0x20
_BPF_JEQ_K = 0x15
_BPF_JGE_K = 0x35
_BPF_JA = 0x05
_BPF_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_ARG0_LOW = 16  # offsetof(struct seccomp_data, args[0]), little-endian low word


def _insn(code, jt, jf, k) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def seccomp_program(arch: str, own_pid: int) -> list[bytes]:
    """The allow-list filter as BPF instructions (exposed for tests)."""
    allowed = sorted(set(_ALLOWED_SYSCALLS[arch].values()))
    signals = _SELF_SIGNAL_SYSCALLS[arch]
    kill_nr = signals["kill"]
    self_only = sorted(set(signals.values()))
    deny = _RET_ERRNO | errno.EPERM
    prog = [
        _insn(_BPF_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        _insn(_BPF_JEQ_K, 1, 0, _AUDIT_ARCH[arch]),
        _insn(_BPF_RET_K, 0, 0, _RET_KILL_PROCESS),
        _insn(_BPF_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if arch == "x86_64":  # x32 ABI syscalls carry bit 30; never needed
        prog.append(_insn(_BPF_JGE_K, 0, 1, 0x40000000))
        prog.append(_insn(_BPF_RET_K, 0, 0, deny))
    # allowed numbers: jump to the ALLOW at the end of this block
    for i, nr in enumerate(allowed):
        prog.append(_insn(_BPF_JEQ_K, len(allowed) - i, 0, nr))
    prog.append(_insn(_BPF_JA, 0, 0, 1))  # none matched: on to the signal checks
    prog.append(_insn(_BPF_RET_K, 0, 0, _RET_ALLOW))
    # signal calls: allowed when arg0 is our own pid (or 0 for kill)
    for nr in self_only:
        prog.append(_insn(_BPF_JEQ_K, 0, 6 if nr == kill_nr else 4, nr))
        prog.append(_insn(_BPF_LD_W_ABS, 0, 0, _ARG0_LOW))
        prog.append(_insn(_BPF_JEQ_K, 0, 1, own_pid))
        prog.append(_insn(_BPF_RET_K, 0, 0, _RET_ALLOW))
        if nr == kill_nr:
            prog.append(_insn(_BPF_JEQ_K, 0, 1, 0))
            prog.append(_insn(_BPF_RET_K, 0, 0, _RET_ALLOW))
        prog.append(_insn(_BPF_RET_K, 0, 0, deny))
    prog.append(_insn(_BPF_RET_K, 0, 0, deny))
    return prog


def apply_seccomp() -> bool:
    """Install the allow-list filter; returns whether it was applied."""
    arch = platform.machine()
    if arch not in _AUDIT_ARCH:
        return False
    prog = seccomp_program(arch, os.getpid())
    code = b"".join(prog)
    filt = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(prog), ctypes.cast(filt, ctypes.c_void_p))
    libc = _syscall()
    rc = libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0)
    return rc == 0


def status() -> dict:
    """What confinement this machine supports (for ``spade-gym doctor`` and the docs)."""
    return {"landlock_abi": landlock_abi(), "seccomp_arch": platform.machine() in _AUDIT_ARCH}
