"""Language layer: what a program may write (the rules, a RestrictedPython transformer: :mod:`.rules`,
:mod:`.names`, :mod:`.compiler`) and what it meets at run time (:mod:`.guards`,
:mod:`.standins`, the vetted module surfaces of :mod:`.surfaces` and :mod:`.vetted`, the
``math_verify`` stand-in :mod:`.mathverify` and the tool-use base class :mod:`.tooluse`).

It rejects most escape attempts early with a readable, line-numbered error; the process
layer (:mod:`spade_gym.sandbox.process`) is the boundary.
"""
