"""``python -m semantix``: the same as the ``semantix`` command."""

from semantix.cli import main

raise SystemExit(main())
