//! `fetch` for static scripts: the native half. The prelude's `fetch`
//! (js/prelude.js) resolves the URL against the page and calls
//! `N.fetch(method, url, headers, body)`, which makes the request with the
//! engine's [`Fetcher`] (the page's vetting of every address, redirects,
//! the 10 MiB body cap) and waits for it on the script's own thread, within
//! the run's deadline. The bytes received count towards the run's `bytes`.
//! JavaScript is paused meanwhile, as it would be at an `await` that
//! nothing else can interleave with: the engine runs one script.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use rquickjs::{Ctx, Exception, Function, Object};

use crate::fetch::{Fetcher, ScriptRequest};

/// What a run's script may reach the network with.
#[derive(Clone)]
pub struct Network {
    pub fetcher: Arc<Fetcher>,
    /// The runtime the requests run on (the script's thread is not one of its).
    pub runtime: tokio::runtime::Handle,
    /// The run's received bytes.
    pub received: Arc<AtomicU64>,
    pub deadline: Instant,
}

impl Network {
    /// Makes `request`, blocking the calling thread until it is answered,
    /// fails, or the run's deadline passes.
    pub fn fetch(&self, request: &ScriptRequest) -> Result<crate::fetch::Fetched, String> {
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err("the run's time is up".into());
        }
        // The timer needs the runtime's context; `block_on` drives the rest.
        let _entered = self.runtime.enter();
        let sent = tokio::time::timeout(remaining, self.fetcher.script_fetch(request, &self.received));
        match self.runtime.block_on(sent) {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err("the run's time is up".into()),
        }
    }
}

/// `N.fetch(method, url, headers, body)`: `{status, url, headers, body}`
/// (the body as text, decoded as UTF-8), or a `TypeError` as a browser's
/// `fetch` rejects with. Without a network (tests of the DOM alone) it throws.
pub fn register<'js>(ctx: &Ctx<'js>, native: &Object<'js>, network: Option<Network>) -> rquickjs::Result<()> {
    let fetch = move |ctx: Ctx<'js>,
                      method: String,
                      url: String,
                      headers: Vec<Vec<String>>,
                      body: Option<String>|
          -> rquickjs::Result<Object<'js>> {
        let Some(network) = &network else {
            return Err(Exception::throw_type(
                &ctx,
                "fetch is not available here (no network given to the static engine)",
            ));
        };
        let headers = headers
            .into_iter()
            .filter_map(|pair| match pair.as_slice() {
                [name, value] => Some((name.clone(), value.clone())),
                _ => None,
            })
            .collect();
        let request = ScriptRequest { method, url: url.clone(), headers, body };
        let response = match network.fetch(&request) {
            Ok(response) => response,
            Err(why) => return Err(Exception::throw_type(&ctx, &format!("fetch of {url} failed: {why}"))),
        };
        let answer = Object::new(ctx.clone())?;
        answer.set("status", response.status)?;
        answer.set("url", response.url.as_str())?;
        let headers: Vec<Vec<String>> = response.headers.into_iter().map(|(k, v)| vec![k, v]).collect();
        answer.set("headers", headers)?;
        answer.set("body", String::from_utf8_lossy(&response.body).into_owned())?;
        Ok(answer)
    };
    native.set("fetch", Function::new(ctx.clone(), fetch)?)
}
