"""``python -m anonkit``: the command-line interface."""

import sys

try:
    from anonkit.cli import run, stop_while_loading

    if __name__ == "__main__":  # not in a spawned worker, which imports this module too
        stop_while_loading()  # SIGTERM or SIGHUP while the next line loads polars
    from anonkit.cli.common import quiet_when_stdout_closes
except KeyboardInterrupt:  # Ctrl-C before run() could install its own protection
    import os
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # no second traceback on shutdown
    sys.stderr.write("Interrupted; nothing was written.\n")
    sys.stderr.flush()
    os._exit(130)  # not SystemExit: see anonkit.cli.exit_loading

if __name__ == "__main__":
    with quiet_when_stdout_closes():  # `python -m anonkit --help | head -1`: exit 141
        run()
