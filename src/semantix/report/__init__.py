"""One rendering of a run's semantic assertions: the typed report (`semantix.report._model`: a
`CheckRecord` per assertion), the terminal table, JSON, JUnit, the HTML page."""

from semantix.report._records import (
    CheckRecord,
    Summary,
    error_record,
    json_document,
    result_record,
    summarize,
)

__all__ = [
    "CheckRecord",
    "Summary",
    "error_record",
    "json_document",
    "result_record",
    "summarize",
]
