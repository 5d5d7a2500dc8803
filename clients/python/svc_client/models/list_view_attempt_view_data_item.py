from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ListViewAttemptViewDataItem")


@_attrs_define
class ListViewAttemptViewDataItem:
    """One attempt of the delivery log.

    Attributes:
        attempt (int):
        created_at (str):
        event (str):
        history_id (str):
        id (str):
        state (str):
        duration_ms (int | None | Unset):
        error (None | str | Unset):
        next_retry_at (None | str | Unset):
        response_body (None | str | Unset):
        response_status (int | None | Unset):
    """

    attempt: int
    created_at: str
    event: str
    history_id: str
    id: str
    state: str
    duration_ms: int | None | Unset = UNSET
    error: None | str | Unset = UNSET
    next_retry_at: None | str | Unset = UNSET
    response_body: None | str | Unset = UNSET
    response_status: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        created_at = self.created_at

        event = self.event

        history_id = self.history_id

        id = self.id

        state = self.state

        duration_ms: int | None | Unset
        if isinstance(self.duration_ms, Unset):
            duration_ms = UNSET
        else:
            duration_ms = self.duration_ms

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        next_retry_at: None | str | Unset
        if isinstance(self.next_retry_at, Unset):
            next_retry_at = UNSET
        else:
            next_retry_at = self.next_retry_at

        response_body: None | str | Unset
        if isinstance(self.response_body, Unset):
            response_body = UNSET
        else:
            response_body = self.response_body

        response_status: int | None | Unset
        if isinstance(self.response_status, Unset):
            response_status = UNSET
        else:
            response_status = self.response_status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt": attempt,
                "createdAt": created_at,
                "event": event,
                "historyId": history_id,
                "id": id,
                "state": state,
            }
        )
        if duration_ms is not UNSET:
            field_dict["durationMs"] = duration_ms
        if error is not UNSET:
            field_dict["error"] = error
        if next_retry_at is not UNSET:
            field_dict["nextRetryAt"] = next_retry_at
        if response_body is not UNSET:
            field_dict["responseBody"] = response_body
        if response_status is not UNSET:
            field_dict["responseStatus"] = response_status

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        created_at = d.pop("createdAt")

        event = d.pop("event")

        history_id = d.pop("historyId")

        id = d.pop("id")

        state = d.pop("state")

        def _parse_duration_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        duration_ms = _parse_duration_ms(d.pop("durationMs", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_next_retry_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_retry_at = _parse_next_retry_at(d.pop("nextRetryAt", UNSET))

        def _parse_response_body(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        response_body = _parse_response_body(d.pop("responseBody", UNSET))

        def _parse_response_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        response_status = _parse_response_status(d.pop("responseStatus", UNSET))

        list_view_attempt_view_data_item = cls(
            attempt=attempt,
            created_at=created_at,
            event=event,
            history_id=history_id,
            id=id,
            state=state,
            duration_ms=duration_ms,
            error=error,
            next_retry_at=next_retry_at,
            response_body=response_body,
            response_status=response_status,
        )

        list_view_attempt_view_data_item.additional_properties = d
        return list_view_attempt_view_data_item

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
