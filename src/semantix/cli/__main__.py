"""``python -m semantix.cli``: the same as ``python -m semantix`` and the ``semantix`` command."""

from semantix.cli import main

raise SystemExit(main())
