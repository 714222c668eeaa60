"""``python -m anonkit``: the command-line interface."""

import sys

try:
    from anonkit.cli import run
except KeyboardInterrupt:  # Ctrl-C before run() could install its own protection
    import os
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # no second traceback on shutdown
    sys.stderr.write("Interrupted; nothing was written.\n")
    sys.stderr.flush()
    os._exit(130)  # not SystemExit: see anonkit.cli.exit_loading

if __name__ == "__main__":
    run()
