"""The peers' recorded cases (``data/<name>.json``, made as tests/peers/README.md says)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def recorded_cases(name: str) -> list[dict[str, Any]]:
    """The cases of ``data/<name>.json``."""
    data = json.loads((Path(__file__).parent / "data" / f"{name}.json").read_text("utf-8"))
    return data["cases"]  # type: ignore[no-any-return]
