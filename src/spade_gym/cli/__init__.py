"""The ``spade-gym`` command line. One module per command; this file only assembles them."""

from spade_gym.cli.app import main

__all__ = ["main"]
