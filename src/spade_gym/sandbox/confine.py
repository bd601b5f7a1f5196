"""Kernel-level confinement for worker processes: Landlock and a seccomp filter.

These are the last line of defence, for the case where a program gets past the
language layer and runs arbitrary Python in its worker. They are applied by the
worker itself right after fork, before any program code exists in the process:

* **Landlock** (Linux >= 5.13, unprivileged): the worker may *read* files only below
  the Python installation and import paths (so a lazy import still works) and may
  create, write, remove or rename nothing anywhere; where the kernel supports it,
  TCP bind/connect are refused and signals to processes outside the worker's own
  Landlock domain (the host, other workers) are blocked.
* **seccomp** (x86-64 and aarch64): system calls a text environment never needs —
  creating sockets, ``execve``, ``ptrace``, ``fork``/``clone``/``clone3``, pidfds
  (``pidfd_open``/``pidfd_getfd``/``pidfd_send_signal``), namespace and mount
  calls, ``io_uring``, ``bpf``, ``perf_event_open``, ``userfaultfd``, ``keyctl`` —
  fail with ``EPERM``.

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
_DENIED_SYSCALLS = {
    "x86_64": {
        "socket": 41, "connect": 42, "accept": 43, "bind": 49, "listen": 50, "socketpair": 53,
        "accept4": 288, "execve": 59, "execveat": 322, "fork": 57, "vfork": 58, "clone3": 435,
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "mount": 165,
        "umount2": 166, "unshare": 272, "setns": 308, "chroot": 161, "pivot_root": 155,
        "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321, "perf_event_open": 298,
        "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "kexec_load": 246, "init_module": 175, "finit_module": 313, "open_by_handle_at": 304,
        "name_to_handle_at": 303, "personality": 135, "clone": 56, "pidfd_open": 434,
        "pidfd_getfd": 438, "pidfd_send_signal": 424, "kcmp": 312,
    },
    "aarch64": {
        "socket": 198, "socketpair": 199, "bind": 200, "listen": 201, "accept": 202, "connect": 203,
        "accept4": 242, "execve": 221, "execveat": 281, "clone3": 435, "ptrace": 117,
        "process_vm_readv": 270, "process_vm_writev": 271, "mount": 40, "umount2": 39,
        "unshare": 97, "setns": 268, "chroot": 51, "pivot_root": 41, "keyctl": 219,
        "add_key": 217, "request_key": 218, "bpf": 280, "perf_event_open": 241,
        "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
        "kexec_load": 104, "init_module": 105, "finit_module": 273, "open_by_handle_at": 265,
        "name_to_handle_at": 264, "personality": 92, "clone": 220, "pidfd_open": 434,
        "pidfd_getfd": 438, "pidfd_send_signal": 424, "kcmp": 272,
    },
}

_BPF_LD_W_ABS = 0x20
_BPF_JEQ_K = 0x15
_BPF_JGE_K = 0x35
_BPF_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


def _insn(code, jt, jf, k) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def apply_seccomp() -> bool:
    """Install the deny-list filter; returns whether it was applied."""
    arch = platform.machine()
    if arch not in _AUDIT_ARCH:
        return False
    denied = sorted(set(_DENIED_SYSCALLS[arch].values()))
    deny = _RET_ERRNO | errno.EPERM
    prog = [
        _insn(_BPF_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        _insn(_BPF_JEQ_K, 1, 0, _AUDIT_ARCH[arch]),
        _insn(_BPF_RET_K, 0, 0, _RET_KILL_PROCESS),
        _insn(_BPF_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
    ]
    if arch == "x86_64":  # x32 ABI syscalls carry bit 30; a text env never needs them
        prog.append(_insn(_BPF_JGE_K, len(denied) + 1, 0, 0x40000000))
    for i, nr in enumerate(denied):
        # on match jump to the final "deny" instruction
        prog.append(_insn(_BPF_JEQ_K, len(denied) - i, 0, nr))
    prog.append(_insn(_BPF_RET_K, 0, 0, _RET_ALLOW))
    prog.append(_insn(_BPF_RET_K, 0, 0, deny))
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
