"""One rendering of a run's semantic assertions: the typed report (`semantix.report._model`: a
`CheckRecord` per assertion), the terminal table, JSON, JUnit, the HTML page."""

from semantix.report._records import (
    REPORT_VERSION,
    CheckRecord,
    Summary,
    error_record,
    json_document,
    result_record,
    sorted_records,
    summarize,
    write_json_report,
)
from semantix.report._terminal import header_line, report_lines, summary_line

__all__ = [
    "REPORT_VERSION",
    "CheckRecord",
    "Summary",
    "error_record",
    "header_line",
    "json_document",
    "report_lines",
    "result_record",
    "sorted_records",
    "summarize",
    "summary_line",
    "write_json_report",
]
