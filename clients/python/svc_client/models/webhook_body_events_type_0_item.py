from enum import StrEnum


class WebhookBodyEventsType0Item(StrEnum):
    SCRAP_FAILURE = "scrap.failure"
    SCRAP_SUCCESS = "scrap.success"

    def __str__(self) -> str:
        return str(self.value)
