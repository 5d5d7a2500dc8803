from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CreatedWebhookView")


@_attrs_define
class CreatedWebhookView:
    """The creation response: the webhook plus `plainSecret`, shown this once.

    Attributes:
        active (bool):
        created_at (str):
        events (list[str]):
        id (str):
        scrap_ids (list[str]):
        updated_at (str):
        url (str):
        plain_secret (str):
    """

    active: bool
    created_at: str
    events: list[str]
    id: str
    scrap_ids: list[str]
    updated_at: str
    url: str
    plain_secret: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        active = self.active

        created_at = self.created_at

        events = self.events

        id = self.id

        scrap_ids = self.scrap_ids

        updated_at = self.updated_at

        url = self.url

        plain_secret = self.plain_secret

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active": active,
                "createdAt": created_at,
                "events": events,
                "id": id,
                "scrapIds": scrap_ids,
                "updatedAt": updated_at,
                "url": url,
                "plainSecret": plain_secret,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        active = d.pop("active")

        created_at = d.pop("createdAt")

        events = cast(list[str], d.pop("events"))

        id = d.pop("id")

        scrap_ids = cast(list[str], d.pop("scrapIds"))

        updated_at = d.pop("updatedAt")

        url = d.pop("url")

        plain_secret = d.pop("plainSecret")

        created_webhook_view = cls(
            active=active,
            created_at=created_at,
            events=events,
            id=id,
            scrap_ids=scrap_ids,
            updated_at=updated_at,
            url=url,
            plain_secret=plain_secret,
        )

        created_webhook_view.additional_properties = d
        return created_webhook_view

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
