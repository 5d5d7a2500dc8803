from enum import StrEnum


class ExportHistoryDataFormat(StrEnum):
    CSV = "csv"
    JSON = "json"
    NDJSON = "ndjson"
    XLSX = "xlsx"

    def __str__(self) -> str:
        return str(self.value)
