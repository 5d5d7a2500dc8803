//! Web sessions a user can see and end: each log-in (and sign-up) opens one,
//! on the client's device and address; logging out ends it, a password
//! change ends the others, and the user can end any of them, or all.
//! `AuthService::session` refuses a token whose session has ended.

use std::net::IpAddr;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use svc_domain::login_session::{LoginSession, device_of};
use svc_domain::{OrgId, SessionId, UserId};
use svc_storage::Store;

use crate::accounts::jwt::JwtKeys;
use crate::paging::{PageRequest, Paged};
use crate::{Result, ServiceError, Session};

/// Who is logging in: the client's address (per-address limits, the
/// session's "address") and what it says it is (`User-Agent`).
#[derive(Clone, Debug, PartialEq)]
pub struct Client {
    pub address: IpAddr,
    /// The `User-Agent` header; empty when the client sent none.
    pub device: String,
}

impl Client {
    pub fn new(address: IpAddr, user_agent: Option<&str>) -> Self {
        Client { address, device: user_agent.map(device_of).unwrap_or_default() }
    }
}

/// A client known by its address only.
impl From<IpAddr> for Client {
    fn from(address: IpAddr) -> Self {
        Client { address, device: String::new() }
    }
}

/// A session as its user sees it in a list.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionEntry {
    pub session: LoginSession,
    /// The session of the request that asked.
    pub current: bool,
}

pub struct SessionService {
    store: Arc<dyn Store>,
    jwt: Arc<JwtKeys>,
}

impl SessionService {
    pub(crate) fn new(store: Arc<dyn Store>, jwt: Arc<JwtKeys>) -> Self {
        SessionService { store, jwt }
    }

    /// Opens a session for `user` on `client`: its row, then its token
    /// (with its expiry and the session's id).
    pub(crate) async fn open(
        &self,
        org: OrgId,
        user: UserId,
        client: &Client,
    ) -> Result<(String, DateTime<Utc>, SessionId)> {
        let now = Utc::now();
        let id = SessionId::new();
        let (token, expires_at) = self.jwt.sign(user, org, id, now);
        let row = LoginSession {
            id,
            organization_id: org,
            user_id: user,
            device: client.device.clone(),
            address: client.address.to_string(),
            created_at: now,
            last_seen_at: now,
            expires_at,
        };
        self.store.insert_session(&row).await?;
        Ok((token, expires_at, id))
    }

    /// One page of the user's live sessions, most recently seen first.
    pub async fn list(&self, session: &Session, page: PageRequest) -> Result<Paged<SessionEntry>> {
        let rows = self.store.live_sessions(session.org(), session.user(), Utc::now()).await?;
        let total = rows.len() as i64;
        let items = rows
            .into_iter()
            .skip(page.offset() as usize)
            .take(page.per_page as usize)
            .map(|s| SessionEntry { current: s.id == session.id(), session: s })
            .collect();
        Ok(Paged { items, total, page })
    }

    /// Logs out: ends the caller's own session.
    pub async fn log_out(&self, session: &Session) -> Result<()> {
        self.store.end_session(session.org(), session.user(), session.id(), Utc::now()).await?;
        Ok(())
    }

    /// Ends one of the user's sessions (the caller's own included); another
    /// user's, an ended or an unknown one is not found.
    pub async fn end(&self, session: &Session, id: SessionId) -> Result<()> {
        if !self.store.end_session(session.org(), session.user(), id, Utc::now()).await? {
            return Err(ServiceError::NotFound("session"));
        }
        Ok(())
    }

    /// Signs out everywhere: ends every session of the user, the caller's
    /// included. Returns how many ended.
    pub async fn end_all(&self, session: &Session) -> Result<u64> {
        Ok(self.store.end_sessions(session.org(), session.user(), None, Utc::now()).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::TestServices;

    #[tokio::test]
    async fn ended_sessions_are_refused_at_once() {
        let t = TestServices::start().await;
        let ada = t.signup("ada@example.com").await;
        let bob = t.signup("bob@example.com").await;
        let local: IpAddr = "192.0.2.7".parse().unwrap();
        let login = crate::accounts::Login {
            email: "ada@example.com".into(),
            password: "password-123".into(),
            organization: None,
        };
        let phone = t.services.accounts.login(login, Client::new(local, Some("Phone browser"))).await.unwrap();
        let phone_session = t.services.auth.session(&phone.token).await.unwrap();

        let listed = t.services.sessions.list(&ada.session, PageRequest::default()).await.unwrap();
        assert_eq!(listed.total, 2);
        let second = t.services.sessions.list(&ada.session, PageRequest::new(Some(2), Some(1)).unwrap()).await.unwrap();
        assert_eq!((second.total, second.items.len()), (2, 1));
        assert_eq!(second.items[0], listed.items[1]);
        let listed = listed.items;
        assert_eq!(listed.iter().filter(|e| e.current).count(), 1);
        let on_phone = listed.iter().find(|e| e.session.id == phone_session.id()).unwrap();
        assert_eq!(
            (on_phone.session.device.as_str(), on_phone.session.address.as_str()),
            ("Phone browser", "192.0.2.7")
        );

        // Bob cannot end Ada's session; Ada can.
        assert!(matches!(
            t.services.sessions.end(&bob.session, phone_session.id()).await,
            Err(ServiceError::NotFound(_))
        ));
        t.services.auth.session(&phone.token).await.unwrap();
        t.services.sessions.end(&ada.session, phone_session.id()).await.unwrap();
        assert!(matches!(t.services.auth.session(&phone.token).await, Err(ServiceError::Unauthorized(_))));
        assert!(matches!(t.services.auth.principal(&phone.token).await, Err(ServiceError::Unauthorized(_))));
        assert!(matches!(
            t.services.sessions.end(&ada.session, phone_session.id()).await,
            Err(ServiceError::NotFound(_))
        ));
        t.services.auth.session(&ada.token).await.expect("the other session lives on");

        t.services.sessions.log_out(&ada.session).await.unwrap();
        assert!(t.services.auth.session(&ada.token).await.is_err());
        t.services.auth.session(&bob.token).await.expect("bob's untouched");
        assert_eq!(t.services.sessions.end_all(&bob.session).await.unwrap(), 1);
        assert!(t.services.auth.session(&bob.token).await.is_err());
    }
}
