from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.list_view_recipient_view_data_item import (
        ListViewRecipientViewDataItem,
    )


T = TypeVar("T", bound="ListViewRecipientView")


@_attrs_define
class ListViewRecipientView:
    """`{"data": [...], "total": N, "page": P, "perPage": PP}`.

    Attributes:
        data (list[ListViewRecipientViewDataItem]):
        page (int):
        per_page (int):
        total (int):
    """

    data: list[ListViewRecipientViewDataItem]
    page: int
    per_page: int
    total: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        page = self.page

        per_page = self.per_page

        total = self.total

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "page": page,
                "perPage": per_page,
                "total": total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.list_view_recipient_view_data_item import (
            ListViewRecipientViewDataItem,
        )

        d = dict(src_dict)
        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = ListViewRecipientViewDataItem.from_dict(data_item_data)

            data.append(data_item)

        page = d.pop("page")

        per_page = d.pop("perPage")

        total = d.pop("total")

        list_view_recipient_view = cls(
            data=data,
            page=page,
            per_page=per_page,
            total=total,
        )

        list_view_recipient_view.additional_properties = d
        return list_view_recipient_view

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
