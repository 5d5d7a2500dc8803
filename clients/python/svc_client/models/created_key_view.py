from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreatedKeyView")


@_attrs_define
class CreatedKeyView:
    """The creation response: the key plus `plainKey`, shown this once.

    Attributes:
        created_at (str):
        id (str):
        name (str):
        prefix (str):
        scopes (list[str]):
        scrap_ids (list[str]):
        plain_key (str):
        expires_at (None | str | Unset):
    """

    created_at: str
    id: str
    name: str
    prefix: str
    scopes: list[str]
    scrap_ids: list[str]
    plain_key: str
    expires_at: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        id = self.id

        name = self.name

        prefix = self.prefix

        scopes = self.scopes

        scrap_ids = self.scrap_ids

        plain_key = self.plain_key

        expires_at: None | str | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        else:
            expires_at = self.expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "createdAt": created_at,
                "id": id,
                "name": name,
                "prefix": prefix,
                "scopes": scopes,
                "scrapIds": scrap_ids,
                "plainKey": plain_key,
            }
        )
        if expires_at is not UNSET:
            field_dict["expiresAt"] = expires_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = d.pop("createdAt")

        id = d.pop("id")

        name = d.pop("name")

        prefix = d.pop("prefix")

        scopes = cast(list[str], d.pop("scopes"))

        scrap_ids = cast(list[str], d.pop("scrapIds"))

        plain_key = d.pop("plainKey")

        def _parse_expires_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        expires_at = _parse_expires_at(d.pop("expiresAt", UNSET))

        created_key_view = cls(
            created_at=created_at,
            id=id,
            name=name,
            prefix=prefix,
            scopes=scopes,
            scrap_ids=scrap_ids,
            plain_key=plain_key,
            expires_at=expires_at,
        )

        created_key_view.additional_properties = d
        return created_key_view

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
