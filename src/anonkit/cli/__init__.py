"""The ``anonkit`` command line (typer + rich): ``anonymize``, ``check`` and ``demo``.

Each subcommand lives in its own module and is a thin layer over the public API; the
typer application and the ``main()`` entry point are in :mod:`anonkit.cli.main`.
"""
