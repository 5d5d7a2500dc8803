//! "Use a screenshot of the page": a run-like job whose result is an image.
//! The scrap's page is loaded by this process's browser engine through the
//! engine contract (`Engine::screenshot`), under the same isolation as a
//! run of the scrap (vetted egress, a context of its own, the organization
//! named), with a script that only returns, without the scrap's site login;
//! the viewport's PNG becomes the scrap's banner (`scraps::banner`). It is
//! metered and charged like a test run; nothing is written to the history.

use svc_domain::meter::units;
use svc_domain::scope::Scope;
use svc_domain::scrap::{DEFAULT_SCRAPPER, Scrap};
use svc_domain::{HistoryId, ScrapId};
use svc_engine::{Loads, PageCapture, PageInput, RunJob, ScriptResult};

use super::RunService;
use crate::scraps::banner::keep_banner;
use crate::scraps::banner_image;
use crate::{Result, ServiceError, Session};

/// The script of a screenshot: the page as it loads, nothing extracted.
const SCREENSHOT_SCRIPT: &str = "returnData([])";

impl RunService {
    /// Makes a screenshot of the scrap's page its banner; the scrap as it is
    /// then. A page that cannot be loaded is refused (422 on `url`, saying
    /// why), as is a server without a browser in this process (503).
    pub async fn screenshot_banner(&self, session: &Session, id: ScrapId) -> Result<Scrap> {
        session.require(&[Scope::ScrapsWrite, Scope::ScrapsRun])?;
        let org = session.org();
        let scrap = self.store.scrap(org, id).await?.ok_or(ServiceError::NotFound("scrap"))?;
        let (engine, _) = self.engine_for_users_job(session).await?;
        self.take_users_job_limit(session).await?;
        let job = RunJob {
            history_id: HistoryId::new().to_string(),
            url: scrap.url.clone(),
            script: SCREENSHOT_SCRIPT.into(),
            param: None,
            params: vec![],
            triggered_by: "user",
            timeout: self.run_timeout,
            loads: Loads::default(),
            capture_page: PageCapture::Never,
            tier: 0,
            account: None,
            session: None,
            // A screenshot needs a browser, whatever engine the scrap's runs use.
            scrapper: DEFAULT_SCRAPPER.into(),
            reuse: None,
            confined_to: None,
            organization: Some(org),
            page: PageInput::single(),
        };
        let shot = engine.screenshot(job).await;
        self.store.add_balance(org, -units(shot.report.bytes)).await?;
        let png = match (shot.report.result, shot.png) {
            (ScriptResult::Data { .. }, Some(png)) => png,
            (ScriptResult::Failed { message }, _) => {
                return Err(ServiceError::validation("url", format!("the page could not be loaded: {message}")));
            }
            (ScriptResult::Data { .. }, None) => {
                return Err(ServiceError::validation("url", "the browser took no screenshot of the page"));
            }
        };
        let clean = tokio::task::spawn_blocking(move || banner_image::clean_screenshot(&png))
            .await
            .map_err(|e| ServiceError::Internal(format!("screenshot decoding stopped: {e}")))?
            .map_err(ServiceError::Internal)?;
        let what = format!("Banner set from a screenshot of the page ({} x {} pixels)", clean.width, clean.height);
        keep_banner(&*self.store, session, id, clean, what).await
    }
}
