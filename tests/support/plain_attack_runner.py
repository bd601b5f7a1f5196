"""Run attack programs under plain ``exec`` (no sandbox) to prove each attack works.

Only for the test-suite's own attack corpus. Reads a JSON list of
``{"name", "source", "dir"}`` from stdin; forks one child per attack (so one attack's
monkeypatching cannot affect the next), runs ``reset()`` in the given directory and
prints a JSON object ``name -> observation or "error: ..."``.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from plain_runner import load  # noqa: E402


def run_one(source, directory):
    os.chdir(directory)
    try:
        env = load(source, real_math_verify=True)()
        obs, _ = env.reset(seed=0)
        return str(obs)
    except BaseException as exc:  # noqa: BLE001
        return f"error: {type(exc).__name__}: {exc}"


def main():
    attacks = json.load(sys.stdin)
    results = {}
    for attack in attacks:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            out = run_one(attack["source"], attack["dir"])
            os.write(write_fd, out.encode("utf-8", "replace")[:100_000])
            os._exit(0)
        os.close(write_fd)
        chunks = []
        while True:
            chunk = os.read(read_fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(read_fd)
        os.waitpid(pid, 0)
        results[attack["name"]] = b"".join(chunks).decode("utf-8", "replace")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
