from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.new_webhook_body_events_item import NewWebhookBodyEventsItem
from ..types import UNSET, Unset

T = TypeVar("T", bound="NewWebhookBody")


@_attrs_define
class NewWebhookBody:
    """The body of `POST /api/developers/webhooks` (`url` and `events` required) and `PUT`/`PATCH
    /api/developers/webhooks/{id}` (absent fields are left alone). `null` is taken as absent. `url` must be https and
    resolve to public addresses (unless the operator allows private networks); `scrapIds` must name scraps of the
    caller's organization (`[]`: every scrap).

        Attributes:
            events (list[NewWebhookBodyEventsItem]):
            url (str):
            active (bool | None | Unset):
            scrap_ids (list[str] | None | Unset):
    """

    events: list[NewWebhookBodyEventsItem]
    url: str
    active: bool | None | Unset = UNSET
    scrap_ids: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        url = self.url

        active: bool | None | Unset
        if isinstance(self.active, Unset):
            active = UNSET
        else:
            active = self.active

        scrap_ids: list[str] | None | Unset
        if isinstance(self.scrap_ids, Unset):
            scrap_ids = UNSET
        elif isinstance(self.scrap_ids, list):
            scrap_ids = self.scrap_ids

        else:
            scrap_ids = self.scrap_ids

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "events": events,
                "url": url,
            }
        )
        if active is not UNSET:
            field_dict["active"] = active
        if scrap_ids is not UNSET:
            field_dict["scrapIds"] = scrap_ids

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = NewWebhookBodyEventsItem(events_item_data)

            events.append(events_item)

        url = d.pop("url")

        def _parse_active(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        active = _parse_active(d.pop("active", UNSET))

        def _parse_scrap_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                scrap_ids_type_0 = cast(list[str], data)

                return scrap_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        scrap_ids = _parse_scrap_ids(d.pop("scrapIds", UNSET))

        new_webhook_body = cls(
            events=events,
            url=url,
            active=active,
            scrap_ids=scrap_ids,
        )

        return new_webhook_body
