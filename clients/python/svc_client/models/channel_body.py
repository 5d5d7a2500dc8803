from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ChannelBody")


@_attrs_define
class ChannelBody:
    """The body of `POST /api/developers/channels`. `name` (1-40 of a-z 0-9 - _) is how scraps refer to it (`alert:
    "channel:NAME"`); `url` is a channel URL in Apprise's syntax: `slack://A/B/C`, `discord://ID/TOKEN`,
    `workflows://HOST/WORKFLOW/SIGNATURE` (Microsoft Teams), `tgram://BOT_TOKEN/CHAT_ID`, `ntfy://TOPIC`,
    `ntfys://HOST/TOPIC`, `mmosts://HOST/TOKEN`, `jsons://HOST/PATH`.

        Attributes:
            name (str):
            url (str):
    """

    name: str
    url: str

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
                "url": url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        url = d.pop("url")

        channel_body = cls(
            name=name,
            url=url,
        )

        return channel_body
