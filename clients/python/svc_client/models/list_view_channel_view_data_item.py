from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ListViewChannelViewDataItem")


@_attrs_define
class ListViewChannelViewDataItem:
    """A saved channel as svc shows it: the URL with its secrets redacted.

    Attributes:
        created_at (str):
        id (str):
        name (str):
        redacted_url (str): The URL, every token cut to its last 4 characters.
        reference (str): What a scrap's `alert` (or other recipient field) says to use it.
        service (str): `slack`, `discord`, `teams`, `telegram`, `ntfy`, `mattermost` or `json`.
    """

    created_at: str
    id: str
    name: str
    redacted_url: str
    reference: str
    service: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        id = self.id

        name = self.name

        redacted_url = self.redacted_url

        reference = self.reference

        service = self.service

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "createdAt": created_at,
                "id": id,
                "name": name,
                "redactedUrl": redacted_url,
                "reference": reference,
                "service": service,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = d.pop("createdAt")

        id = d.pop("id")

        name = d.pop("name")

        redacted_url = d.pop("redactedUrl")

        reference = d.pop("reference")

        service = d.pop("service")

        list_view_channel_view_data_item = cls(
            created_at=created_at,
            id=id,
            name=name,
            redacted_url=redacted_url,
            reference=reference,
            service=service,
        )

        list_view_channel_view_data_item.additional_properties = d
        return list_view_channel_view_data_item

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
