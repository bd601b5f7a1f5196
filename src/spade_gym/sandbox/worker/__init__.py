"""Worker runtime: what runs inside a worker process, around the program.

:mod:`.serve` is the request loop; :mod:`.runtime` holds one worker's program and its
contract calls; :mod:`.instance` one live instance in a world of its own; :mod:`.deadline`
the per-call wall-clock deadline and CPU budget; :mod:`.results` turns what the program
returns or raises into plain, checked data for the wire.
"""
