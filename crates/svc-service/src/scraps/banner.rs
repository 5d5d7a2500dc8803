//! A scrap's banner: an image uploaded (`upload`) or a screenshot of its
//! page (`RunService::screenshot_banner`), kept in the database
//! (`BannerStore`) so that every node serves it, at
//! `/banners/TOKEN.EXT`: the token, 32 random characters, new with each
//! image, is what grants reading it (an `<img>` and a feed reader send no
//! header). The scrap's `banner` holds that path, or is empty without a
//! banner. Writes take a web session, like every write of a scrap.

use std::sync::Arc;

use rand::Rng;
use rand::distr::Alphanumeric;
use svc_domain::activity::Activity;
use svc_domain::scope::Scope;
use svc_domain::scrap::Scrap;
use svc_domain::{OrgId, ScrapId};
use svc_storage::{BannerImage, NewBanner, Store};

use crate::scraps::banner_image::{self, CleanImage};
use crate::{Result, ServiceError, Session};

/// Where banners are served: the path a scrap's `banner` holds starts so.
pub const BANNER_PATH: &str = "/banners/";
/// Random characters of a banner's token.
const TOKEN_LEN: usize = 32;

/// An image served at a banner's path.
pub use svc_storage::BannerImage as ServedBanner;

pub struct BannerService {
    store: Arc<dyn Store>,
}

impl BannerService {
    pub(crate) fn new(store: Arc<dyn Store>) -> Self {
        BannerService { store }
    }

    /// Makes `upload` (the bytes of a PNG, JPEG or WebP of at most 2 MiB)
    /// the scrap's banner, decoded and encoded again without its metadata.
    /// Anything else is refused (422 on `file`).
    pub async fn upload(&self, session: &Session, scrap: ScrapId, upload: Vec<u8>) -> Result<Scrap> {
        self.check_writable(session, scrap).await?;
        // Decoding is CPU work: off the async threads.
        let clean = tokio::task::spawn_blocking(move || banner_image::clean(&upload))
            .await
            .map_err(|e| ServiceError::Internal(format!("banner decoding stopped: {e}")))?
            .map_err(|why| ServiceError::validation("file", why))?;
        let what =
            format!("Banner uploaded ({}, {} x {} pixels)", clean.extension.to_uppercase(), clean.width, clean.height);
        keep_banner(&*self.store, session, scrap, clean, what).await
    }

    /// Removes the scrap's banner (`banner` becomes empty); its path stops
    /// serving the image.
    pub async fn remove(&self, session: &Session, scrap: ScrapId) -> Result<Scrap> {
        session.require(&[Scope::ScrapsWrite])?;
        let log = Activity::new(session.org(), scrap, "banner.removed", actor(session), "Banner removed".into());
        if !self.store.remove_banner(session.org(), scrap, chrono::Utc::now(), &log).await? {
            return Err(ServiceError::NotFound("scrap"));
        }
        self.store.scrap(session.org(), scrap).await?.ok_or(ServiceError::NotFound("scrap"))
    }

    /// The image at banner path token `token` (`TOKEN.EXT`), while it is
    /// its scrap's banner. No credential: the token is one.
    pub async fn served(&self, token: &str) -> Result<ServedBanner> {
        let plain = token.len() <= TOKEN_LEN + 5 && token.chars().all(|c| c.is_ascii_alphanumeric() || c == '.');
        if !plain {
            return Err(ServiceError::NotFound("banner"));
        }
        let path = format!("{BANNER_PATH}{token}");
        self.store.banner_image(token, &path).await?.ok_or(ServiceError::NotFound("banner"))
    }

    /// Fails as [`Self::upload`] would before looking at the image: the
    /// scope, the role, and the scrap in the session's organization.
    pub async fn check_writable(&self, session: &Session, scrap: ScrapId) -> Result<()> {
        session.require(&[Scope::ScrapsWrite])?;
        self.require_scrap(session.org(), scrap).await
    }

    async fn require_scrap(&self, org: OrgId, scrap: ScrapId) -> Result<()> {
        if self.store.existing_scrap_ids(org, &[scrap]).await?.is_empty() {
            return Err(ServiceError::NotFound("scrap"));
        }
        Ok(())
    }
}

fn actor(session: &Session) -> String {
    format!("user:{}", session.user())
}

/// Stores `image` as the scrap's banner under a new token, logging `what`
/// (`banner.set`); the scrap as it is then.
pub(crate) async fn keep_banner(
    store: &dyn Store,
    session: &Session,
    scrap: ScrapId,
    image: CleanImage,
    what: String,
) -> Result<Scrap> {
    let org = session.org();
    let log = Activity::new(org, scrap, "banner.set", actor(session), what);
    let token: String = rand::rng().sample_iter(&Alphanumeric).take(TOKEN_LEN).map(char::from).collect();
    let token = format!("{token}.{}", image.extension);
    let path = format!("{BANNER_PATH}{token}");
    let stored = BannerImage { content_type: image.content_type.to_string(), bytes: image.bytes };
    if !store
        .set_banner(org, scrap, &NewBanner { token: &token, path: &path, image: &stored, at: chrono::Utc::now() }, &log)
        .await?
    {
        return Err(ServiceError::NotFound("scrap"));
    }
    store.scrap(org, scrap).await?.ok_or(ServiceError::NotFound("scrap"))
}
