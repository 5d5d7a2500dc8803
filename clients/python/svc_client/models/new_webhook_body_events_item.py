from enum import StrEnum


class NewWebhookBodyEventsItem(StrEnum):
    SCRAP_FAILURE = "scrap.failure"
    SCRAP_SUCCESS = "scrap.success"

    def __str__(self) -> str:
        return str(self.value)
