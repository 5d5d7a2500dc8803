from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="AnnouncementBody")


@_attrs_define
class AnnouncementBody:
    """The body of `POST /api/developers/announcements`.

    Attributes:
        subject (str): One line of 1 to 200 characters.
        text (str): Markdown or plain text, up to 100 KiB.
    """

    subject: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        subject = self.subject

        text = self.text

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "subject": subject,
                "text": text,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        subject = d.pop("subject")

        text = d.pop("text")

        announcement_body = cls(
            subject=subject,
            text=text,
        )

        return announcement_body
