from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="VersionView")


@_attrs_define
class VersionView:
    """A version of a scrap's script (`GET /api/scraps/{id}/versions` items).

    Attributes:
        created_at (str):
        id (str):
        number (int):
        request (str): The script.
        scrap_id (str):
        source (str): `user`, `ai_fix` or `rollback`.
        approved_at (None | str | Unset): When a person accepted it: a person's own versions when made, an
            `ai_fix` version when its owner approved it in the web app. `null`
            while an `ai_fix` version waits; until then the scrap's runs with it
            reach only the scrap's own site.
        history_id (None | str | Unset):
        restored_from (None | str | Unset):
    """

    created_at: str
    id: str
    number: int
    request: str
    scrap_id: str
    source: str
    approved_at: None | str | Unset = UNSET
    history_id: None | str | Unset = UNSET
    restored_from: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        id = self.id

        number = self.number

        request = self.request

        scrap_id = self.scrap_id

        source = self.source

        approved_at: None | str | Unset
        if isinstance(self.approved_at, Unset):
            approved_at = UNSET
        else:
            approved_at = self.approved_at

        history_id: None | str | Unset
        if isinstance(self.history_id, Unset):
            history_id = UNSET
        else:
            history_id = self.history_id

        restored_from: None | str | Unset
        if isinstance(self.restored_from, Unset):
            restored_from = UNSET
        else:
            restored_from = self.restored_from

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "createdAt": created_at,
                "id": id,
                "number": number,
                "request": request,
                "scrapId": scrap_id,
                "source": source,
            }
        )
        if approved_at is not UNSET:
            field_dict["approvedAt"] = approved_at
        if history_id is not UNSET:
            field_dict["historyId"] = history_id
        if restored_from is not UNSET:
            field_dict["restoredFrom"] = restored_from

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = d.pop("createdAt")

        id = d.pop("id")

        number = d.pop("number")

        request = d.pop("request")

        scrap_id = d.pop("scrapId")

        source = d.pop("source")

        def _parse_approved_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        approved_at = _parse_approved_at(d.pop("approvedAt", UNSET))

        def _parse_history_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        history_id = _parse_history_id(d.pop("historyId", UNSET))

        def _parse_restored_from(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        restored_from = _parse_restored_from(d.pop("restoredFrom", UNSET))

        version_view = cls(
            created_at=created_at,
            id=id,
            number=number,
            request=request,
            scrap_id=scrap_id,
            source=source,
            approved_at=approved_at,
            history_id=history_id,
            restored_from=restored_from,
        )

        version_view.additional_properties = d
        return version_view

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
