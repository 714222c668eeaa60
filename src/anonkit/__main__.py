"""``python -m anonkit``: the command-line interface."""

import sys

try:
    from anonkit.cli import run
except KeyboardInterrupt:  # Ctrl-C before run() could install its own protection
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # no second traceback on shutdown
    sys.stderr.write("Interrupted; nothing was written.\n")
    raise SystemExit(130) from None

if __name__ == "__main__":
    run()
