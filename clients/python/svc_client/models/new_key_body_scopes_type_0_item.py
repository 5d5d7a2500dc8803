from enum import StrEnum


class NewKeyBodyScopesType0Item(StrEnum):
    SVCAPI_KEYSMANAGE = "svc:api-keys:manage"
    SVCHISTORYREAD = "svc:history:read"
    SVCMAILANNOUNCE = "svc:mail:announce"
    SVCSCRAPSREAD = "svc:scraps:read"
    SVCSCRAPSRUN = "svc:scraps:run"
    SVCSCRAPSWRITE = "svc:scraps:write"
    SVCTASKSREAD = "svc:tasks:read"
    SVCWEBHOOKSMANAGE = "svc:webhooks:manage"

    def __str__(self) -> str:
        return str(self.value)
