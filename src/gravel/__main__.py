"""``python -m gravel``: the command line, as the ``gravel`` command runs it."""

from .cli import main

raise SystemExit(main())
