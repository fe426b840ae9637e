//! Headless Chromium for the pages a person looks at: Debian's `chromium` driven through its
//! `chromedriver` over WebDriver (the `fantoccini` client), both installed by `scripts/setup`.
//! Each [`Browser`] has its own chromedriver on a free port and an empty profile.
//!
//! Screenshots: with `MODOAI_SCREENSHOTS=DIR` set, [`Browser::screenshot`] writes `DIR/NAME.png`
//! (the docs' screenshots are made so: docs/testing.md); otherwise it only checks that one can be
//! taken.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;

use crate::http::MARGIN;
use crate::process::{free_port, require_tool, Running};

/// The flags a headless Chromium needs on a machine without a display or network: no sandbox
/// (tests run as root), no GPU, and none of the background connections a closed network refuses.
const CHROMIUM_FLAGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// A headless Chromium session; the browser and its driver end when this is dropped or closed.
pub struct Browser {
    client: Client,
    _driver: Running,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts chromedriver and a Chromium session with a window of `width` × `height` pixels.
    pub async fn start(width: u32, height: u32) -> Browser {
        Browser::start_with(width, height, None).await
    }

    /// [`Browser::start`], the files it downloads saved into `downloads` without asking.
    pub async fn start_downloading(width: u32, height: u32, downloads: &Path) -> Browser {
        Browser::start_with(width, height, Some(downloads)).await
    }

    async fn start_with(width: u32, height: u32, downloads: Option<&Path>) -> Browser {
        require_tool(
            "chromium",
            "scripts/setup (Debian packages chromium, chromium-driver)",
        );
        require_tool(
            "chromedriver",
            "scripts/setup (Debian packages chromium, chromium-driver)",
        );
        let port = free_port();
        let driver = Running(
            Command::new("chromedriver")
                .arg(format!("--port={port}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("chromedriver starts"),
        );
        let profile = tempfile::tempdir().expect("a profile folder");
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--window-size={width},{height}"));
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let mut caps = serde_json::Map::new();
        let mut options = serde_json::json!({ "binary": "/usr/bin/chromium", "args": args });
        if let Some(dir) = downloads {
            options["prefs"] = serde_json::json!({
                "download.default_directory": dir,
                "download.prompt_for_download": false,
            });
        }
        caps.insert("goog:chromeOptions".into(), options);
        let url = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        let client = loop {
            match ClientBuilder::new(HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&url)
                .await
            {
                Ok(c) => break c,
                Err(e) if started.elapsed() < MARGIN => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("no Chromium session through chromedriver: {e}"),
            }
        };
        Browser {
            client,
            _driver: driver,
            _profile: profile,
        }
    }

    /// The WebDriver client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Loads `url` and waits for the page.
    pub async fn open(&self, url: &str) {
        self.client.goto(url).await.expect("the page loads");
    }

    /// The visible text of the first element `css` selects.
    pub async fn text(&self, css: &str) -> String {
        let e = self.client.find(Locator::Css(css)).await;
        let e = e.unwrap_or_else(|err| panic!("no element {css}: {err}"));
        e.text().await.expect("its text")
    }

    /// The visible texts of every element `css` selects.
    pub async fn texts(&self, css: &str) -> Vec<String> {
        let mut out = Vec::new();
        for e in self.client.find_all(Locator::Css(css)).await.expect("find") {
            out.push(e.text().await.expect("its text"));
        }
        out
    }

    /// The attribute `name` of every element `css` selects (elements without it left out).
    pub async fn attrs(&self, css: &str, name: &str) -> Vec<String> {
        let mut out = Vec::new();
        for e in self.client.find_all(Locator::Css(css)).await.expect("find") {
            out.extend(e.attr(name).await.expect("its attribute"));
        }
        out
    }

    /// How many elements `css` selects.
    pub async fn count(&self, css: &str) -> usize {
        self.client
            .find_all(Locator::Css(css))
            .await
            .expect("find")
            .len()
    }

    /// Types `text` into the first element `css` selects, after clearing it.
    pub async fn fill(&self, css: &str, text: &str) {
        let e = self.client.find(Locator::Css(css)).await;
        let e = e.unwrap_or_else(|err| panic!("no element {css}: {err}"));
        e.clear().await.expect("clear");
        e.send_keys(text).await.expect("type");
    }

    /// Chooses the option of value `value` in the `<select>` `css` selects.
    pub async fn select(&self, css: &str, value: &str) {
        let e = self.client.find(Locator::Css(css)).await;
        let e = e.unwrap_or_else(|err| panic!("no element {css}: {err}"));
        e.select_by_value(value).await.expect("select");
    }

    /// Runs `script` (a function body: `return …;`) in the page; what it returns.
    pub async fn script(&self, script: &str) -> serde_json::Value {
        self.client
            .execute(script, Vec::new())
            .await
            .unwrap_or_else(|e| panic!("the script failed: {e}\n{script}"))
    }

    /// Waits until the text of the first element `css` selects contains `needle`; that text.
    pub async fn wait_text(&self, css: &str, needle: &str) -> String {
        let started = Instant::now();
        loop {
            let text = match self.client.find(Locator::Css(css)).await {
                Ok(e) => e.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            if text.contains(needle) {
                return text;
            }
            assert!(
                started.elapsed() < MARGIN,
                "{css} never said {needle:?}; it says {text:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Moves into the frame (`<iframe>`) `css` selects: later calls look inside it.
    pub async fn enter_frame(&self, css: &str) {
        let e = self.client.find(Locator::Css(css)).await;
        e.unwrap_or_else(|err| panic!("no frame {css}: {err}"))
            .enter_frame()
            .await
            .expect("enter the frame");
    }

    /// Clicks the first element `css` selects, for what it does in the page (no navigation).
    pub async fn press(&self, css: &str) {
        let e = self.client.find(Locator::Css(css)).await;
        e.unwrap_or_else(|err| panic!("no element {css}: {err}"))
            .click()
            .await
            .expect("click");
    }

    /// Clicks the first element `css` selects and waits until the URL changes.
    pub async fn click(&self, css: &str) {
        let before = self.client.current_url().await.expect("url");
        let e = self.client.find(Locator::Css(css)).await;
        e.unwrap_or_else(|err| panic!("no element {css}: {err}"))
            .click()
            .await
            .expect("click");
        let started = Instant::now();
        while self.client.current_url().await.expect("url") == before {
            assert!(started.elapsed() < MARGIN, "clicking {css} led nowhere");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Takes a screenshot (PNG); writes it as `NAME.png` into `$MODOAI_SCREENSHOTS` when set.
    pub async fn screenshot(&self, name: &str) -> Vec<u8> {
        let png = self.client.screenshot().await.expect("a screenshot");
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        if let Some(dir) = std::env::var_os("MODOAI_SCREENSHOTS") {
            let path = PathBuf::from(dir).join(format!("{name}.png"));
            std::fs::write(&path, &png).expect("write the screenshot");
        }
        png
    }

    /// Ends the session.
    pub async fn close(self) {
        let _ = self.client.close().await;
    }
}
