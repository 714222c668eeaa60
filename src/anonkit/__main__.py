"""``python -m anonkit``: the command-line interface."""

from anonkit.cli.main import main

if __name__ == "__main__":
    main()
