from enum import StrEnum


class ScrapBodyProxyTierType2Type1(StrEnum):
    TIER0 = "tier0"
    TIER1 = "tier1"
    TIER2 = "tier2"
    TIER3 = "tier3"
    TIER4 = "tier4"

    def __str__(self) -> str:
        return str(self.value)
