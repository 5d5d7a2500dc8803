from enum import StrEnum


class NewScrapBodyScrapper(StrEnum):
    AUTO = "auto"
    PUPPETEER = "puppeteer"
    STATIC = "static"

    def __str__(self) -> str:
        return str(self.value)
