from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TaskView")


@_attrs_define
class TaskView:
    """An AI task (`GET /api/tasks/{id}`).

    Attributes:
        created_at (str):
        id (str):
        status (str): `queued`, `running`, `succeeded` or `failed`.
        type_ (str): `ai_wizard`, `ai_generate` or `ai_fix`.
        error (None | str | Unset):
        finished_at (None | str | Unset):
        history_id (None | str | Unset):
        result (Any | Unset):
        scrap_id (None | str | Unset):
    """

    created_at: str
    id: str
    status: str
    type_: str
    error: None | str | Unset = UNSET
    finished_at: None | str | Unset = UNSET
    history_id: None | str | Unset = UNSET
    result: Any | Unset = UNSET
    scrap_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        id = self.id

        status = self.status

        type_ = self.type_

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        finished_at: None | str | Unset
        if isinstance(self.finished_at, Unset):
            finished_at = UNSET
        else:
            finished_at = self.finished_at

        history_id: None | str | Unset
        if isinstance(self.history_id, Unset):
            history_id = UNSET
        else:
            history_id = self.history_id

        result = self.result

        scrap_id: None | str | Unset
        if isinstance(self.scrap_id, Unset):
            scrap_id = UNSET
        else:
            scrap_id = self.scrap_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "createdAt": created_at,
                "id": id,
                "status": status,
                "type": type_,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if finished_at is not UNSET:
            field_dict["finishedAt"] = finished_at
        if history_id is not UNSET:
            field_dict["historyId"] = history_id
        if result is not UNSET:
            field_dict["result"] = result
        if scrap_id is not UNSET:
            field_dict["scrapId"] = scrap_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = d.pop("createdAt")

        id = d.pop("id")

        status = d.pop("status")

        type_ = d.pop("type")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_finished_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        finished_at = _parse_finished_at(d.pop("finishedAt", UNSET))

        def _parse_history_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        history_id = _parse_history_id(d.pop("historyId", UNSET))

        result = d.pop("result", UNSET)

        def _parse_scrap_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scrap_id = _parse_scrap_id(d.pop("scrapId", UNSET))

        task_view = cls(
            created_at=created_at,
            id=id,
            status=status,
            type_=type_,
            error=error,
            finished_at=finished_at,
            history_id=history_id,
            result=result,
            scrap_id=scrap_id,
        )

        task_view.additional_properties = d
        return task_view

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
