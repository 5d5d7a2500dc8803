from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ListViewRunPageViewDataItem")


@_attrs_define
class ListViewRunPageViewDataItem:
    """One page of a crawl's run (`GET /api/historys/{id}/pages` items), in
    the order of the run's data.

        Attributes:
            depth (int): Links followed from the start page to reach it.
            items (int): Items its script returned.
            position (int): Its place in the run (0: the start page).
            status (str): `ok`, `error`, `skipped_robots` (robots.txt disallows it) or
                `skipped_limit` (a limit stopped the crawl before it).
            time (int): How long its run took, in milliseconds (0 for a page not run).
            url (str):
            error (None | str | Unset): Why it failed or was skipped.
            label (None | str | Unset): `SVC.label` on the page (`start` for the start page).
    """

    depth: int
    items: int
    position: int
    status: str
    time: int
    url: str
    error: None | str | Unset = UNSET
    label: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        depth = self.depth

        items = self.items

        position = self.position

        status = self.status

        time = self.time

        url = self.url

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        label: None | str | Unset
        if isinstance(self.label, Unset):
            label = UNSET
        else:
            label = self.label

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "depth": depth,
                "items": items,
                "position": position,
                "status": status,
                "time": time,
                "url": url,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if label is not UNSET:
            field_dict["label"] = label

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        depth = d.pop("depth")

        items = d.pop("items")

        position = d.pop("position")

        status = d.pop("status")

        time = d.pop("time")

        url = d.pop("url")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_label(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        label = _parse_label(d.pop("label", UNSET))

        list_view_run_page_view_data_item = cls(
            depth=depth,
            items=items,
            position=position,
            status=status,
            time=time,
            url=url,
            error=error,
            label=label,
        )

        list_view_run_page_view_data_item.additional_properties = d
        return list_view_run_page_view_data_item

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
