//! `fetch` for static scripts: the native half. The prelude's `fetch`
//! (js/prelude.js) resolves the URL against the page and calls
//! `N.fetch(method, url, headers, body)`, which hands the request to the
//! run's [`ScriptFetch`] and waits for its answer. In the sandbox process
//! that is a request to the engine over the process's channel
//! (`sandbox/child.rs`): the engine makes it with its [`Fetcher`]
//! (the page's vetting of every address, redirects, the 10 MiB body cap,
//! within the run's deadline) and counts the bytes received towards the
//! run's `bytes`. JavaScript is paused meanwhile, as it would be at an
//! `await` that nothing else can interleave with: the engine runs one script.
//!
//! [`Fetcher`]: crate::fetch::Fetcher

use std::cell::RefCell;
use std::rc::Rc;

use rquickjs::{Ctx, Exception, Function, Object};
use serde::{Deserialize, Serialize};

use crate::fetch::ScriptRequest;

/// A response as the script's `fetch` sees it: the body as text (decoded as UTF-8).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScriptResponse {
    pub status: u16,
    /// Where the response came from, after redirects.
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl From<crate::fetch::Fetched> for ScriptResponse {
    fn from(fetched: crate::fetch::Fetched) -> Self {
        ScriptResponse {
            status: fetched.status,
            url: fetched.url.to_string(),
            headers: fetched.headers,
            body: String::from_utf8_lossy(&fetched.body).into_owned(),
        }
    }
}

/// Where a run's script sends its requests: blocks until the answer, or
/// why there is none (the message of the `TypeError` the script sees).
pub trait ScriptFetch {
    fn fetch(&self, request: &ScriptRequest) -> Result<ScriptResponse, String>;
}

thread_local! {
    /// Where the run under way on this thread sends its requests (`script_runtime` sets it for the run's length).
    static NETWORK: RefCell<Option<Rc<dyn ScriptFetch>>> = const { RefCell::new(None) };
}

/// The run's network until the guard is dropped.
pub struct RunNetwork(());

impl Drop for RunNetwork {
    fn drop(&mut self) {
        NETWORK.with_borrow_mut(|network| *network = None);
    }
}

/// Gives the run under way `network` (`None`: `fetch` throws).
pub fn give(network: Option<Rc<dyn ScriptFetch>>) -> RunNetwork {
    NETWORK.with_borrow_mut(|slot| *slot = network);
    RunNetwork(())
}

/// `N.fetch(method, url, headers, body)`: `{status, url, headers, body}`,
/// or a `TypeError` as a browser's `fetch` rejects with. Without a network
/// given to the run (tests of the DOM alone) it throws.
pub fn register<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> rquickjs::Result<()> {
    let fetch = move |ctx: Ctx<'js>,
                      method: String,
                      url: String,
                      headers: Vec<Vec<String>>,
                      body: Option<String>|
          -> rquickjs::Result<Object<'js>> {
        let Some(network) = NETWORK.with_borrow(|network| network.clone()) else {
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
        answer.set("url", response.url)?;
        let headers: Vec<Vec<String>> = response.headers.into_iter().map(|(k, v)| vec![k, v]).collect();
        answer.set("headers", headers)?;
        answer.set("body", response.body)?;
        Ok(answer)
    };
    native.set("fetch", Function::new(ctx.clone(), fetch)?)
}
