from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SiteAccountView")


@_attrs_define
class SiteAccountView:
    """What `GET` and `PUT /api/scraps/{id}/account` answer.

    Attributes:
        has_account (bool):
        has_session (bool): Whether a run saved a browser session (cookies) for the next run.
        session_saved_at (None | str | Unset): ISO 8601, when it was saved.
        username (None | str | Unset): The username's first character and `***` (`a***`); `null` without a
            login, or when the stored one cannot be read with the server's key.
    """

    has_account: bool
    has_session: bool
    session_saved_at: None | str | Unset = UNSET
    username: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        has_account = self.has_account

        has_session = self.has_session

        session_saved_at: None | str | Unset
        if isinstance(self.session_saved_at, Unset):
            session_saved_at = UNSET
        else:
            session_saved_at = self.session_saved_at

        username: None | str | Unset
        if isinstance(self.username, Unset):
            username = UNSET
        else:
            username = self.username

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hasAccount": has_account,
                "hasSession": has_session,
            }
        )
        if session_saved_at is not UNSET:
            field_dict["sessionSavedAt"] = session_saved_at
        if username is not UNSET:
            field_dict["username"] = username

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        has_account = d.pop("hasAccount")

        has_session = d.pop("hasSession")

        def _parse_session_saved_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        session_saved_at = _parse_session_saved_at(d.pop("sessionSavedAt", UNSET))

        def _parse_username(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        username = _parse_username(d.pop("username", UNSET))

        site_account_view = cls(
            has_account=has_account,
            has_session=has_session,
            session_saved_at=session_saved_at,
            username=username,
        )

        site_account_view.additional_properties = d
        return site_account_view

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
