//! The request bodies of the public interface (`svc-api-types`) turned into
//! the service commands (`svc-service`). The services name failing fields
//! by their wire names, so a refusal still points at what the client sent.

pub(crate) use svc_api_types::{AnnouncementBody, NewKeyBody, ScrapBody, SignupBody, WebhookBody};
use svc_service::accounts::Signup;
use svc_service::accounts::keys::NewKey;
use svc_service::outbox::announcements::Announcement;
use svc_service::outbox::webhooks::WebhookChanges;
use svc_service::scraps::input::ScrapChanges;

/// A request body as the command it asks for.
pub(crate) trait IntoCommand {
    type Command;
    fn into_command(self) -> Self::Command;
}

impl IntoCommand for ScrapBody {
    type Command = ScrapChanges;

    /// The read-only fields of the Scrap shape were accepted, and are dropped here.
    fn into_command(self) -> ScrapChanges {
        ScrapChanges {
            title: self.title,
            description: self.description,
            url: self.url,
            request: self.request,
            scrapper: self.scrapper,
            containers: self.containers,
            params: self.params,
            cron: self.cron,
            cron_timezone: self.cron_timezone,
            alert: self.alert,
            auto_fix: self.auto_fix,
            proxy_tier: self.proxy_tier,
            email_notif: self.email_notif,
            email_notif_recipient: self.email_notif_recipient,
            email_notif_format: self.email_notif_format,
            digest_enabled: self.digest_enabled,
            digest_prompt: self.digest_prompt,
            digest_recipient: self.digest_recipient,
            banner: self.banner,
        }
    }
}

impl IntoCommand for NewKeyBody {
    type Command = NewKey;

    /// Absent and `null` are alike: no name (refused), no scopes (every scope), no scraps (every scrap).
    fn into_command(self) -> NewKey {
        NewKey {
            name: self.name.unwrap_or_default(),
            expires_at: self.expires_at,
            scopes: self.scopes.unwrap_or_default(),
            scrap_ids: self.scrap_ids.unwrap_or_default(),
        }
    }
}

impl IntoCommand for WebhookBody {
    type Command = WebhookChanges;

    fn into_command(self) -> WebhookChanges {
        WebhookChanges { url: self.url, events: self.events, scrap_ids: self.scrap_ids, active: self.active }
    }
}

impl IntoCommand for AnnouncementBody {
    type Command = Announcement;

    fn into_command(self) -> Announcement {
        Announcement { subject: self.subject, text: self.text }
    }
}

impl IntoCommand for SignupBody {
    type Command = Signup;

    fn into_command(self) -> Signup {
        Signup { email: self.email, password: self.password, name: self.name }
    }
}
