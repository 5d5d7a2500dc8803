from enum import StrEnum


class ScrapBodyEmailNotifFormat(StrEnum):
    CSV = "csv"
    JSON = "json"

    def __str__(self) -> str:
        return str(self.value)
