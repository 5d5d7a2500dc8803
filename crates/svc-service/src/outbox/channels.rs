//! The chat channels an organization saves (Settings > Channels, REST
//! `/api/channels`): create, list, delete, and a test message. A saved
//! channel is referred to as `channel:NAME` in a scrap's recipient fields;
//! its URL carries the service's token, so it is sealed at rest and shown
//! redacted after creation.

use std::sync::{Arc, OnceLock};
use svc_domain::scope::Scope;

use chrono::Utc;
use svc_domain::ObjectId;
use svc_domain::channel::{ChannelUrl, SavedChannel, check_name};
use svc_storage::{Store, StoreError};

use crate::outbox::channel_message::{ChannelNote, Level};
use crate::outbox::channel_sender::ChannelSender;
use crate::outbox::mail_transport::MailError;
use crate::{Result, ServiceError, Session};

/// At most this many channels per organization.
pub const MAX_CHANNELS: usize = 50;

pub struct ChannelService {
    store: Arc<dyn Store>,
    /// The sender, once the server has one (it needs the HTTP client).
    sender: OnceLock<Arc<ChannelSender>>,
    public_url: String,
}

impl ChannelService {
    pub(crate) fn new(store: Arc<dyn Store>, public_url: String) -> Self {
        ChannelService { store, sender: OnceLock::new(), public_url }
    }

    /// Sends test messages through `sender` (the one the mailer uses).
    pub fn attach_sender(&self, sender: Arc<ChannelSender>) {
        let _ = self.sender.set(sender);
    }

    pub async fn create(&self, session: &Session, name: &str, url: &str) -> Result<SavedChannel> {
        session.require(&[Scope::WebhooksManage])?;
        let name = name.trim();
        check_name(name).map_err(|m| ServiceError::validation("name", m))?;
        let url = url.trim();
        ChannelUrl::parse(url).map_err(|m| ServiceError::validation("url", m))?;
        if self.store.list_channels(session.org()).await?.len() >= MAX_CHANNELS {
            return Err(ServiceError::validation(
                "name",
                format!("an organization has at most {MAX_CHANNELS} channels"),
            ));
        }
        let channel = SavedChannel {
            id: ObjectId::new(),
            organization_id: session.org(),
            name: name.to_string(),
            url: url.to_string(),
            created_at: Utc::now(),
        };
        match self.store.insert_channel(&channel).await {
            Ok(()) => Ok(channel),
            Err(StoreError::Conflict(_)) => Err(ServiceError::Conflict {
                code: "CHANNEL_EXISTS",
                message: format!("the organization already has a channel named `{name}`"),
            }),
            Err(e) => Err(e.into()),
        }
    }

    pub async fn list(&self, session: &Session) -> Result<Vec<SavedChannel>> {
        Ok(self.store.list_channels(session.org()).await?)
    }

    pub async fn get(&self, session: &Session, id: ObjectId) -> Result<SavedChannel> {
        self.store.channel(session.org(), id).await?.ok_or(ServiceError::NotFound("channel"))
    }

    pub async fn delete(&self, session: &Session, id: ObjectId) -> Result<()> {
        session.require(&[Scope::WebhooksManage])?;
        if self.store.delete_channel(session.org(), id).await? {
            Ok(())
        } else {
            Err(ServiceError::NotFound("channel"))
        }
    }

    /// The organization's outbox rows (emails and channel messages) that
    /// failed for good, newest first: the admin page lists them.
    pub async fn failed_sends(&self, session: &Session, limit: i64) -> Result<Vec<svc_domain::email::EmailRecord>> {
        Ok(self.store.failed_emails(session.org(), limit.clamp(1, 100)).await?)
    }

    /// Sends a test message to the saved channel `id` now, and says how
    /// it went: `Ok(Err(why))` when the service refused it or could not be
    /// reached.
    pub async fn test(&self, session: &Session, id: ObjectId) -> Result<std::result::Result<(), String>> {
        session.require(&[Scope::WebhooksManage])?;
        let channel = self.get(session, id).await?;
        let sender = self.sender.get().ok_or(ServiceError::Unavailable("channel sending is not running".into()))?;
        let url = ChannelUrl::parse(&channel.url).map_err(|m| ServiceError::validation("url", m))?;
        let note = ChannelNote {
            title: format!("svc: test message to channel:{}", channel.name),
            text: "This channel receives alerts and results from svc. Nothing is wrong.".into(),
            link: Some(format!("{}/settings/channels", self.public_url)),
            level: Level::Info,
        };
        Ok(sender.send_note(&url, &note).await.map_err(|e| match e {
            MailError::Transient(e) => format!("not delivered (temporary): {e}"),
            MailError::Permanent(e) => e,
        }))
    }
}
