"""``python -m anonkit``: the command-line interface."""

from anonkit.cli import run

if __name__ == "__main__":
    run()
