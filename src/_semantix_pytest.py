"""semantix-judge's pytest entry point: `semantix.pytest._plugin` itself, or why it cannot load.

It lives outside the ``semantix`` package because that package may not be ours: semantix-ai
installs a top-level ``semantix`` too, and installed after semantix-judge it replaces ours, so
pytest could only say "No module named 'semantix.pytest'". (Installed before, ``import semantix``
says it: `semantix._compat.refuse_a_second_semantix`.)
"""

from __future__ import annotations

import sys

try:
    from semantix.pytest import _plugin as plugin
except ImportError as exc:
    from importlib import metadata

    try:
        other = metadata.distribution("semantix-ai")
    except metadata.PackageNotFoundError:
        raise exc from None  # another cause: the import error as it is
    raise ImportError(
        f"semantix-ai {other.version} is installed too, and its 'semantix' package hides "
        "semantix-judge's (both install a top-level 'semantix'; the one installed last wins), "
        "so semantix's pytest plugin cannot load. Keep one: pip uninstall -y semantix-ai, then "
        "reinstall semantix-judge (pip install --force-reinstall --no-deps -e . in its clone)"
    ) from None

sys.modules[__name__] = plugin  # pytest registers the plugin module itself
