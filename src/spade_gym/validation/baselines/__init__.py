"""The validator's scripted, no-reasoning baselines: what a program must not let a script win.

:mod:`.base` (what every baseline is: :class:`~.base.Baseline`, :class:`~.base.Prior`), :mod:`.zoo`
(the cheap baselines, the shortcut zoo and :func:`~.zoo.make_baseline`, which builds any of them from a
probe spec), :mod:`.learned` and :mod:`.moves` (baselines that learn a program's feedback on other
seeds), :mod:`.tools` (the tool-use zoo) and :mod:`.hinted` (the hint rule's scripts).
"""
