"""The click group and the conventions every command follows.

* ``--help`` explains the command and ends with an example;
* failures print one line (``Error: ...``) and exit non-zero, never a traceback
  (set ``SPADE_GYM_DEBUG=1`` to see one);
* commands that report something take ``--json``.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
import warnings

import click

from spade_gym import __version__
from spade_gym.display import printable
from spade_gym.errors import SpadeError

#: Exit status for usage errors (click's own convention).
USAGE_ERROR = 2

# command name -> module that defines it (imported on demand, keeping --help fast)
COMMANDS = {
    "list": "spade_gym.cli.list_cmd",
    "show": "spade_gym.cli.show_cmd",
    "play": "spade_gym.cli.play_cmd",
    "validate": "spade_gym.cli.validate_cmd",
    "revalidate": "spade_gym.cli.revalidate_cmd",
    "import": "spade_gym.cli.import_cmd",
    "generate": "spade_gym.cli.generate_cmd",
    "selfplay": "spade_gym.cli.selfplay_cmd",
    "report": "spade_gym.cli.report_cmd",
    "eval": "spade_gym.cli.eval_cmd",
    "doctor": "spade_gym.cli.doctor_cmd",
    "quarantine": "spade_gym.cli.quarantine_cmd",
    "serve": "spade_gym.cli.serve_cmd",
}


class LazyGroup(click.Group):
    """Loads each command's module only when that command (or the full list) is needed."""

    def list_commands(self, ctx):
        return [name for name in COMMANDS if self._load(name) is not None]

    def get_command(self, ctx, name):
        return self._load(name)

    @functools.cache  # noqa: B019 - one LazyGroup per process: the cache lives as long as the CLI
    def _load(self, name):
        module_name = COMMANDS.get(name)
        if module_name is None:
            return None
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                return None  # command not built yet
            raise
        return module.command


def handle_errors(func):
    """Turn spade-gym errors into one clear line and exit status 1."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except SpadeError as exc:
            if os.environ.get("SPADE_GYM_DEBUG"):
                raise
            message = printable(str(exc).strip()).splitlines()
            click.echo(f"Error: {message[0] if message else type(exc).__name__}", err=True)
            for line in message[1:6]:
                click.echo(f"  {line}", err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            click.echo("Interrupted.", err=True)
            sys.exit(130)

    return wrapper


#: Libraries whose deprecation notices say nothing a spade-gym user can act on.
NOISY_LIBRARIES = ("transformers", "trl", "torch", "accelerate", "peft", "datasets", "huggingface_hub")


def quiet_library_noise() -> None:
    """Keep the output to what spade-gym says: the training and model libraries'
    FutureWarning/DeprecationWarning notices (one per call, often per iteration) are
    filtered; their real warnings and errors still show. ``SPADE_GYM_DEBUG=1`` keeps all."""
    if os.environ.get("SPADE_GYM_DEBUG"):
        return
    pattern = r"(%s)(\.|$)" % "|".join(NOISY_LIBRARIES)
    for category in (FutureWarning, DeprecationWarning, PendingDeprecationWarning):
        warnings.filterwarnings("ignore", category=category, module=pattern)
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="spade-gym")
def main():
    """spade-gym: self-play environment generation for language-model RL.

    Generated programs are validated, sandboxed and registered as
    gym.make("spade/<Name>-v<N>") environments.

    \b
    Example:
      spade-gym list --skill "Logical Deduction"
      spade-gym play spade/LetterFeedbackHunt-v0 --seed 3
    """
    quiet_library_noise()
