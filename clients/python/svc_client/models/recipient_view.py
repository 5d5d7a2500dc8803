from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RecipientView")


@_attrs_define
class RecipientView:
    """An address outside the organization's members that a scrap sends to.

    Attributes:
        created_at (str):
        email (str):
        state (str): `pending` (nothing is sent to it until it confirms) or `confirmed`.
        confirmed_at (None | str | Unset):
        resend_at (None | str | Unset): When "send again" may mail another link (null: now, or confirmed).
        sent_at (None | str | Unset): When the last confirmation mail was queued (null: none was, e.g. email is off).
    """

    created_at: str
    email: str
    state: str
    confirmed_at: None | str | Unset = UNSET
    resend_at: None | str | Unset = UNSET
    sent_at: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at

        email = self.email

        state = self.state

        confirmed_at: None | str | Unset
        if isinstance(self.confirmed_at, Unset):
            confirmed_at = UNSET
        else:
            confirmed_at = self.confirmed_at

        resend_at: None | str | Unset
        if isinstance(self.resend_at, Unset):
            resend_at = UNSET
        else:
            resend_at = self.resend_at

        sent_at: None | str | Unset
        if isinstance(self.sent_at, Unset):
            sent_at = UNSET
        else:
            sent_at = self.sent_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "createdAt": created_at,
                "email": email,
                "state": state,
            }
        )
        if confirmed_at is not UNSET:
            field_dict["confirmedAt"] = confirmed_at
        if resend_at is not UNSET:
            field_dict["resendAt"] = resend_at
        if sent_at is not UNSET:
            field_dict["sentAt"] = sent_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = d.pop("createdAt")

        email = d.pop("email")

        state = d.pop("state")

        def _parse_confirmed_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        confirmed_at = _parse_confirmed_at(d.pop("confirmedAt", UNSET))

        def _parse_resend_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        resend_at = _parse_resend_at(d.pop("resendAt", UNSET))

        def _parse_sent_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        sent_at = _parse_sent_at(d.pop("sentAt", UNSET))

        recipient_view = cls(
            created_at=created_at,
            email=email,
            state=state,
            confirmed_at=confirmed_at,
            resend_at=resend_at,
            sent_at=sent_at,
        )

        recipient_view.additional_properties = d
        return recipient_view

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
