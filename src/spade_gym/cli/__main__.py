"""``python -m spade_gym.cli`` — the same as the ``spade-gym`` console script."""

from spade_gym.cli.app import main

main(prog_name="spade-gym")
