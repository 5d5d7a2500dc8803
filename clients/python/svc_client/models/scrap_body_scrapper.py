from enum import StrEnum


class ScrapBodyScrapper(StrEnum):
    AUTO = "auto"
    PUPPETEER = "puppeteer"
    STATIC = "static"

    def __str__(self) -> str:
        return str(self.value)
