from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="GenerateBody")


@_attrs_define
class GenerateBody:
    """The body of `POST /api/ai/generate`.

    Attributes:
        description (str): What to extract (at most 4,000 characters once trimmed).
        url (str):
        fields (list[str] | Unset):
    """

    description: str
    url: str
    fields: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        url = self.url

        fields: list[str] | Unset = UNSET
        if not isinstance(self.fields, Unset):
            fields = self.fields

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "description": description,
                "url": url,
            }
        )
        if fields is not UNSET:
            field_dict["fields"] = fields

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        description = d.pop("description")

        url = d.pop("url")

        fields = cast(list[str], d.pop("fields", UNSET))

        generate_body = cls(
            description=description,
            url=url,
            fields=fields,
        )

        return generate_body
