"""Process layer, the sandbox's boundary: the fork server that births each worker
(:mod:`.zygote`), kernel confinement (:mod:`.confine`: Landlock and seccomp), what a worker
may read and import (:mod:`.paths`), a diagnostic worker confined the same way
(:mod:`.diagnose`), and the host's client of all of it (:mod:`.host`: ``Zygote``, ``Worker``).
"""
