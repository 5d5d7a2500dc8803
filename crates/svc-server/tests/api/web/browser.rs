//! A real Chromium driven over the DevTools protocol, as a person would use
//! the web app: fields found by their label, buttons by what they say,
//! pages waited for by what they show (polled with a deadline, never slept).

use std::path::PathBuf;
use std::time::Duration;

use chromiumoxide::Page;
use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::emulation::{
    MediaFeature, SetDeviceMetricsOverrideParams, SetEmulatedMediaParams,
};
use chromiumoxide::page::ScreenshotParams;
use futures::StreamExt;
use serde::de::DeserializeOwned;
use tokio::task::JoinHandle;

/// How long a page may take to show what a step waits for.
const DEADLINE: Duration = Duration::from_secs(30);

pub struct WebBrowser {
    browser: Browser,
    handler: JoinHandle<()>,
    _profile: tempfile::TempDir,
}

pub struct Tab {
    page: Page,
    base: String,
}

/// Where screenshots go (CI keeps them as artefacts).
pub fn screenshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots")
}

impl WebBrowser {
    pub async fn launch() -> WebBrowser {
        let executable = svc_runner::browser::find_chromium(std::env::var("SVC_TEST_CHROMIUM").ok().as_deref())
            .expect("a Chromium for the web app tests (scripts/setup.sh installs it)");
        let profile = tempfile::Builder::new().prefix("svc-web-test-").tempdir().unwrap();
        let config = BrowserConfig::builder()
            .chrome_executable(executable)
            .no_sandbox()
            .user_data_dir(profile.path())
            .disable_default_args()
            .args(svc_runner::browser::ARGS.iter().map(|a| a.to_string()))
            .launch_timeout(Duration::from_secs(30))
            .request_timeout(Duration::from_secs(60))
            .viewport(None)
            .build()
            .unwrap();
        let (browser, mut events) = Browser::launch(config).await.expect("start Chromium");
        let handler = tokio::spawn(async move { while events.next().await.is_some() {} });
        WebBrowser { browser, handler, _profile: profile }
    }

    /// A new tab on svc at `base`, at laptop size.
    pub async fn tab(&self, base: &str) -> Tab {
        let page = self.browser.new_page("about:blank").await.unwrap();
        let tab = Tab { page, base: base.to_string() };
        tab.resize(1280, 800, false).await;
        tab
    }

    pub async fn close(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(5), self.browser.close()).await;
        let _ = tokio::time::timeout(Duration::from_secs(5), self.browser.wait()).await;
        self.handler.abort();
    }
}

/// A JavaScript string literal of `s`.
pub fn js_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Finds a form control by the text of its `<label>` (the way people and
/// screen readers find it); fails when there is no such label.
const FIND_BY_LABEL: &str = r#"(text) => {
  const labels = [...document.querySelectorAll('label')];
  const label = labels.find(l => l.textContent.replace(/\s+/g, ' ').trim() === text)
    || labels.find(l => l.textContent.replace(/\s+/g, ' ').trim().startsWith(text));
  if (!label || !label.control) throw new Error('no control labelled ' + text);
  return label.control;
}"#;

/// Finds a button (or else a link) by what it says.
const FIND_BUTTON: &str = r#"(text) => {
  const says = e => (e.textContent || e.value || '').replace(/\s+/g, ' ').trim() === text;
  const b = [...document.querySelectorAll('button, input[type=submit]')].find(says)
    || [...document.querySelectorAll('a')].find(says);
  if (!b) throw new Error('no button or link saying ' + text);
  return b;
}"#;

impl Tab {
    pub async fn eval<T: DeserializeOwned>(&self, js: &str) -> T {
        let result = self.page.evaluate(js).await.unwrap_or_else(|e| panic!("evaluate {js}: {e}"));
        result.into_value().unwrap_or_else(|e| panic!("value of {js}: {e}"))
    }

    /// Runs `js` (a statement list) for its effect.
    pub async fn run(&self, js: &str) {
        let _: bool = self.eval(&format!("(() => {{ {js}; return true; }})()")).await;
    }

    /// Waits until `condition` (a JS expression) is true.
    pub async fn wait_for(&self, condition: &str, what: &str) {
        let give_up = tokio::time::Instant::now() + DEADLINE;
        loop {
            let ok: bool = match self
                .page
                .evaluate(format!("(() => {{ try {{ return !!({condition}); }} catch (e) {{ return false; }} }})()"))
                .await
            {
                Ok(v) => v.into_value().unwrap_or(false),
                Err(_) => false,
            };
            if ok {
                return;
            }
            if tokio::time::Instant::now() > give_up {
                let text = self.text().await;
                panic!("timed out waiting for {what} ({condition}) on {}:\n{text}", self.path().await);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Opens a path of svc and waits for the page.
    pub async fn open(&self, path: &str) {
        self.page.goto(format!("{}{}", self.base, path)).await.unwrap_or_else(|e| panic!("open {path}: {e}"));
        self.wait_for("document.readyState === 'complete'", "the page").await;
    }

    /// The current path and query.
    pub async fn path(&self) -> String {
        self.eval("location.pathname + location.search").await
    }

    /// What the page shows, as text.
    pub async fn text(&self) -> String {
        self.eval("document.body ? document.body.innerText : ''").await
    }

    pub async fn html(&self) -> String {
        self.page.content().await.unwrap()
    }

    /// Types `value` into the control labelled `label`.
    pub async fn fill(&self, label: &str, value: &str) {
        self.run(&format!(
            "const c = ({FIND_BY_LABEL})({}); c.focus(); c.value = {}; \
             c.dispatchEvent(new Event('input', {{bubbles: true}})); c.dispatchEvent(new Event('change', {{bubbles: true}}))",
            js_str(label),
            js_str(value)
        ))
        .await;
    }

    /// The value of the control labelled `label`.
    pub async fn value(&self, label: &str) -> String {
        self.eval(&format!("({FIND_BY_LABEL})({}).value", js_str(label))).await
    }

    /// Ticks (or unticks) the checkbox labelled `label`.
    pub async fn check(&self, label: &str, on: bool) {
        self.run(&format!("const c = ({FIND_BY_LABEL})({}); if (c.checked !== {on}) c.click()", js_str(label))).await;
    }

    /// Clicks the button or link saying `text`, staying on the page.
    pub async fn click(&self, text: &str) {
        self.run(&format!("({FIND_BUTTON})({}).click()", js_str(text))).await;
    }

    /// Clicks the button or link saying `text` and waits for the next page.
    pub async fn click_and_load(&self, text: &str) {
        self.run("window.__svcOldPage = true").await;
        self.click(text).await;
        self.wait_for(
            "window.__svcOldPage === undefined && document.readyState === 'complete'",
            &format!("the page after {text}"),
        )
        .await;
    }

    /// Whether a button or link says `text`.
    pub async fn has_button(&self, text: &str) -> bool {
        self.eval(&format!(
            "(() => {{ try {{ ({FIND_BUTTON})({}); return true; }} catch (e) {{ return false; }} }})()",
            js_str(text)
        ))
        .await
    }

    pub async fn resize(&self, width: i64, height: i64, mobile: bool) {
        let params = SetDeviceMetricsOverrideParams::builder()
            .width(width)
            .height(height)
            .device_scale_factor(1.0)
            .mobile(mobile)
            .build()
            .unwrap();
        self.page.execute(params).await.unwrap();
    }

    /// Chooses the file at `path` in the file input `selector`, as a person
    /// picking it in the file dialog would.
    pub async fn choose_file(&self, selector: &str, path: &std::path::Path) {
        let input = self.page.find_element(selector).await.unwrap();
        let params = chromiumoxide::cdp::browser_protocol::dom::SetFileInputFilesParams::builder()
            .files(vec![path.display().to_string()])
            .backend_node_id(input.backend_node_id)
            .build()
            .unwrap();
        self.page.execute(params).await.unwrap();
    }

    /// Sets `prefers-color-scheme`.
    pub async fn color_scheme(&self, dark: bool) {
        let feature = MediaFeature::new("prefers-color-scheme", if dark { "dark" } else { "light" });
        self.page.execute(SetEmulatedMediaParams::builder().features(vec![feature]).build()).await.unwrap();
    }

    /// Full-page screenshots of the current page at laptop (1280x800) and
    /// phone (390x844) widths: `<name>-laptop.png`, `<name>-phone.png`.
    pub async fn screenshots(&self, name: &str) {
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).unwrap();
        for (suffix, width, height, mobile) in [("laptop", 1280, 800, false), ("phone", 390, 844, true)] {
            self.resize(width, height, mobile).await;
            let png = self.page.screenshot(ScreenshotParams::builder().full_page(true).build()).await.unwrap();
            assert!(png.starts_with(b"\x89PNG"), "a PNG");
            std::fs::write(dir.join(format!("{name}-{suffix}.png")), png).unwrap();
        }
        self.resize(1280, 800, false).await;
    }
}
