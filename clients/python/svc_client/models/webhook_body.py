from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.webhook_body_events_type_0_item import WebhookBodyEventsType0Item
from ..types import UNSET, Unset

T = TypeVar("T", bound="WebhookBody")


@_attrs_define
class WebhookBody:
    """The body of `POST /api/developers/webhooks` (`url` and `events` required) and `PUT`/`PATCH
    /api/developers/webhooks/{id}` (absent fields are left alone). `null` is taken as absent. `url` must be https and
    resolve to public addresses (unless the operator allows private networks); `scrapIds` must name scraps of the
    caller's organization (`[]`: every scrap).

        Attributes:
            active (bool | None | Unset):
            events (list[WebhookBodyEventsType0Item] | None | Unset):
            scrap_ids (list[str] | None | Unset):
            url (None | str | Unset):
    """

    active: bool | None | Unset = UNSET
    events: list[WebhookBodyEventsType0Item] | None | Unset = UNSET
    scrap_ids: list[str] | None | Unset = UNSET
    url: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        active: bool | None | Unset
        if isinstance(self.active, Unset):
            active = UNSET
        else:
            active = self.active

        events: list[str] | None | Unset
        if isinstance(self.events, Unset):
            events = UNSET
        elif isinstance(self.events, list):
            events = []
            for events_type_0_item_data in self.events:
                events_type_0_item = events_type_0_item_data.value
                events.append(events_type_0_item)

        else:
            events = self.events

        scrap_ids: list[str] | None | Unset
        if isinstance(self.scrap_ids, Unset):
            scrap_ids = UNSET
        elif isinstance(self.scrap_ids, list):
            scrap_ids = self.scrap_ids

        else:
            scrap_ids = self.scrap_ids

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if active is not UNSET:
            field_dict["active"] = active
        if events is not UNSET:
            field_dict["events"] = events
        if scrap_ids is not UNSET:
            field_dict["scrapIds"] = scrap_ids
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_active(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        active = _parse_active(d.pop("active", UNSET))

        def _parse_events(
            data: object,
        ) -> list[WebhookBodyEventsType0Item] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                events_type_0 = []
                _events_type_0 = data
                for events_type_0_item_data in _events_type_0:
                    events_type_0_item = WebhookBodyEventsType0Item(
                        events_type_0_item_data
                    )

                    events_type_0.append(events_type_0_item)

                return events_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[WebhookBodyEventsType0Item] | None | Unset, data)

        events = _parse_events(d.pop("events", UNSET))

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

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        webhook_body = cls(
            active=active,
            events=events,
            scrap_ids=scrap_ids,
            url=url,
        )

        return webhook_body
