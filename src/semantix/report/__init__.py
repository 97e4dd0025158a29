"""One rendering of a run's semantic assertions: records, the terminal table, JSON, JUnit.

The pytest plugin collects a `Record` per assertion (`semantix.report.records`), merges
the records of xdist workers, and renders them here; the CLI reuses the same pass/fail line.
"""

from semantix.report.records import (
    REPORT_VERSION,
    Record,
    Summary,
    error_record,
    json_document,
    result_record,
    sorted_records,
    summarize,
    write_json_report,
)
from semantix.report.terminal import header_line, report_lines, summary_line

__all__ = [
    "REPORT_VERSION",
    "Record",
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
