//! A scrap's banner over REST: `POST /api/scraps/:id/banner` (a multipart
//! `file`, built here by hand as a browser sends it), the image served at
//! the path in `banner` (re-encoded, metadata gone), `DELETE`, and the
//! refusals: 413 over the body limit, 422 for what is not an image or is
//! damaged, 401 for an API key, 404 across organizations; and a screenshot
//! of the scrap's page, taken by Chromium, as the banner.

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::common::site::Site;
use crate::common::{Account, TestApp, assert_error};

const PRIVATE_OK: (&str, &str) = ("SVC_ALLOW_PRIVATE_NETWORKS", "true");

const BOUNDARY: &str = "----svc-banner-test-7d1f";

pub fn png(width: u32, height: u32) -> Vec<u8> {
    let img = RgbImage::from_fn(width, height, |x, y| Rgb([(x * 7) as u8, (y * 5) as u8, 180]));
    let mut out = Vec::new();
    DynamicImage::ImageRgb8(img).write_to(&mut Cursor::new(&mut out), ImageFormat::Png).unwrap();
    out
}

/// A JPEG with an APP1 Exif segment naming a camera and a place.
fn jpeg_with_exif() -> Vec<u8> {
    let img = RgbImage::from_pixel(48, 27, Rgb([200, 60, 30]));
    let mut plain = Vec::new();
    DynamicImage::ImageRgb8(img).write_with_encoder(JpegEncoder::new_with_quality(&mut plain, 90)).unwrap();
    let payload = b"Exif\0\0MM\0*\0\0\0\x08CameraModel=SecretCam-9000;GPS=48.8584N,2.2945E";
    let mut out = plain[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&((payload.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(payload);
    out.extend_from_slice(&plain[2..]);
    out
}

/// A `multipart/form-data` body with one part named `name`.
fn form(name: &str, filename: &str, content_type: &str, bytes: &[u8]) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\n\
         Content-Type: {content_type}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    body
}

pub async fn upload(app: &TestApp, bearer: &str, scrap: &str, body: Vec<u8>) -> (StatusCode, Value) {
    let request = app
        .request(Method::POST, &format!("/api/scraps/{scrap}/banner"), Some(bearer))
        .header("content-type", format!("multipart/form-data; boundary={BOUNDARY}"))
        .body(body);
    app.send(request).await
}

pub async fn upload_png(app: &TestApp, who: &Account, scrap: &str, bytes: &[u8]) -> Value {
    let (status, body) = upload(app, &who.token, scrap, form("file", "b.png", "image/png", bytes)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// The bytes and media type served at `path`, without a credential.
async fn served(app: &TestApp, path: &str) -> (StatusCode, String, Vec<u8>) {
    let response = app.request(Method::GET, path, None).send().await.unwrap();
    let status = response.status();
    let kind = response.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    (status, kind, response.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn an_uploaded_png_is_served_at_the_path_in_banner_and_removed_with_delete() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let scrap = app.create_scrap(&ada, "With a banner").await;
    let id = scrap["id"].as_str().unwrap();
    assert_eq!(scrap["banner"], "", "no banner yet");

    let scrap = upload_png(&app, &ada, id, &png(64, 36)).await;
    let path = scrap["banner"].as_str().unwrap().to_string();
    assert!(
        path.starts_with("/banners/") && path.ends_with(".png") && path.len() > "/banners/.png".len() + 30,
        "{path}"
    );
    let (status, kind, bytes) = served(&app, &path).await;
    assert_eq!((status, kind.as_str()), (StatusCode::OK, "image/png"));
    let image = image::load_from_memory(&bytes).unwrap();
    assert_eq!((image.width(), image.height()), (64, 36));
    // The scrap says so everywhere it is read.
    let (_, got) = app.get(&format!("/api/scraps/{id}"), &ada.token).await;
    assert_eq!(got["banner"], path);

    // A new image gets a new path; the old one stops serving.
    let scrap = upload_png(&app, &ada, id, &png(32, 18)).await;
    let newer = scrap["banner"].as_str().unwrap().to_string();
    assert_ne!(newer, path);
    assert_eq!(served(&app, &path).await.0, StatusCode::NOT_FOUND);
    assert_eq!(served(&app, &newer).await.0, StatusCode::OK);

    let (status, scrap) = app.delete(&format!("/api/scraps/{id}/banner"), &ada.token).await;
    assert_eq!(status, StatusCode::OK, "{scrap}");
    assert_eq!(scrap["banner"], "");
    assert_eq!(served(&app, &newer).await.0, StatusCode::NOT_FOUND);
    assert_eq!(served(&app, "/banners/not-a-token").await.0, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_jpeg_comes_back_without_its_exif() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let id = app.create_scrap(&ada, "Photo").await["id"].as_str().unwrap().to_string();
    let upload_bytes = jpeg_with_exif();
    assert!(upload_bytes.windows(9).any(|w| w == b"SecretCam"));
    let (status, scrap) = upload(&app, &ada.token, &id, form("file", "p.jpg", "image/jpeg", &upload_bytes)).await;
    assert_eq!(status, StatusCode::OK, "{scrap}");
    let path = scrap["banner"].as_str().unwrap();
    assert!(path.ends_with(".jpg"), "{path}");
    let (status, kind, bytes) = served(&app, path).await;
    assert_eq!((status, kind.as_str()), (StatusCode::OK, "image/jpeg"));
    assert_eq!(image::guess_format(&bytes).unwrap(), ImageFormat::Jpeg);
    assert!(!bytes.windows(4).any(|w| w == b"Exif"), "an Exif segment is still there");
    assert!(!bytes.windows(9).any(|w| w == b"SecretCam") && !bytes.windows(7).any(|w| w == b"48.8584"));
    let image = image::load_from_memory(&bytes).unwrap();
    assert_eq!((image.width(), image.height()), (48, 27));
}

#[tokio::test]
async fn what_is_not_an_image_is_refused_with_422_and_a_body_over_the_limit_with_413() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let id = app.create_scrap(&ada, "Refusals").await["id"].as_str().unwrap().to_string();
    let whole = png(200, 120);
    let cases: [(&str, Vec<u8>, &str); 4] = [
        ("text", form("file", "notes.txt", "text/plain", b"just some words, not an image"), "not a PNG, JPEG or WebP"),
        ("a truncated PNG", form("file", "cut.png", "image/png", &whole[..whole.len() / 2]), "damaged or truncated"),
        ("an empty file", form("file", "empty.png", "image/png", b""), "empty"),
        ("no file part", form("picture", "b.png", "image/png", &whole), "required"),
    ];
    for (what, body, words) in cases {
        let (status, answer) = upload(&app, &ada.token, &id, body).await;
        assert_error(status, &answer, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
        assert_eq!(answer["field"], "file", "{what}: {answer}");
        assert!(answer["description"].as_str().unwrap().contains(words), "{what}: {answer}");
    }
    // Not a multipart body at all.
    let (status, answer) = app.post(&format!("/api/scraps/{id}/banner"), &ada.token, json!({"file": "x"})).await;
    assert_error(status, &answer, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert!(answer["description"].as_str().unwrap().contains("multipart/form-data"), "{answer}");
    // Over 2 MiB: refused before it is read.
    let big = vec![7u8; 2 * 1024 * 1024 + 10];
    let (status, answer) = upload(&app, &ada.token, &id, form("file", "big.png", "image/png", &big)).await;
    assert_error(status, &answer, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    // Nothing was kept.
    let (_, scrap) = app.get(&format!("/api/scraps/{id}"), &ada.token).await;
    assert_eq!(scrap["banner"], "");
}

#[tokio::test]
async fn a_key_cannot_upload_and_another_organization_gets_404() {
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let id = app.create_scrap(&ada, "Ada's").await["id"].as_str().unwrap().to_string();
    let (_, key) = app.create_key(&ada, json!({"name": "ci"})).await;

    let (status, answer) = upload(&app, &key, &id, form("file", "b.png", "image/png", &png(8, 8))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{answer}");
    let (status, answer) = app.delete(&format!("/api/scraps/{id}/banner"), &key).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{answer}");

    let (status, answer) = upload(&app, &bob.token, &id, form("file", "b.png", "image/png", &png(8, 8))).await;
    assert_error(status, &answer, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, answer) = app.delete(&format!("/api/scraps/{id}/banner"), &bob.token).await;
    assert_error(status, &answer, StatusCode::NOT_FOUND, "NOT_FOUND");

    // Ada's own upload works, and the key reads the path like any field.
    let path = upload_png(&app, &ada, &id, &png(8, 8)).await["banner"].as_str().unwrap().to_string();
    let (status, scrap) = app.get(&format!("/api/scraps/{id}"), &key).await;
    assert_eq!((status, scrap["banner"].as_str()), (StatusCode::OK, Some(path.as_str())));
    // Deleting the scrap deletes its image.
    let (status, _) = app.delete(&format!("/api/scraps/{id}"), &ada.token).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(served(&app, &path).await.0, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_screenshot_of_the_page_taken_by_chromium_becomes_the_banner() {
    let site = Site::start().await;
    site.set(
        "/shop",
        200,
        "<!doctype html><html><body style=\"margin:0;background:rgb(220,20,60)\"><h1>Shop</h1></body></html>",
    );
    let app = TestApp::start_with(&[PRIVATE_OK]).await;
    let ada = app.signup("ada@example.com").await;
    let id =
        app.scrap_with(&ada, json!({"title": "Shop", "url": site.url("/shop"), "request": "returnData([1])"})).await;
    let balance_before = app.store.organization(ada.org()).await.unwrap().unwrap().balance;

    let (status, scrap) =
        app.send(app.request(Method::POST, &format!("/api/scraps/{id}/banner/screenshot"), Some(&ada.token))).await;
    assert_eq!(status, StatusCode::OK, "{scrap}");
    let path = scrap["banner"].as_str().unwrap();
    assert!(path.starts_with("/banners/") && path.ends_with(".png"), "{path}");
    let (status, kind, bytes) = served(&app, path).await;
    assert_eq!((status, kind.as_str()), (StatusCode::OK, "image/png"));
    let shot = image::load_from_memory(&bytes).unwrap().to_rgb8();
    assert!(shot.width() >= 300 && shot.height() >= 200, "{}x{}", shot.width(), shot.height());
    // The page's background, well below its heading.
    let pixel = shot.get_pixel(shot.width() / 2, shot.height() - 10);
    assert_eq!(pixel.0, [220, 20, 60], "the page as Chromium drew it");
    assert_eq!(site.engines("/shop"), vec!["browser"], "the browser loaded it");
    // Charged like a test run; no history row.
    let balance_after = app.store.organization(ada.org()).await.unwrap().unwrap().balance;
    assert!(balance_after < balance_before, "{balance_before} -> {balance_after}");
    let (_, rows) = app.get(&format!("/api/historys?scrap={id}"), &ada.token).await;
    assert_eq!(rows["total"], 0, "{rows}");

    // A page that does not load: 422 on `url`, saying why; the banner stays.
    site.set("/shop", 500, "down");
    let (status, answer) =
        app.send(app.request(Method::POST, &format!("/api/scraps/{id}/banner/screenshot"), Some(&ada.token))).await;
    assert_error(status, &answer, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert_eq!(answer["field"], "url", "{answer}");
    assert!(answer["description"].as_str().unwrap().contains("could not be loaded"), "{answer}");
    let (_, got) = app.get(&format!("/api/scraps/{id}"), &ada.token).await;
    assert_eq!(got["banner"], path);
}

#[tokio::test]
async fn a_screenshot_is_held_to_a_runs_rules() {
    let site = Site::start().await;
    site.set("/shop", 200, "<!doctype html><body>private</body>");
    // Private networks are not allowed: the page is refused as a run's would be.
    let app = TestApp::start().await;
    let ada = app.signup("ada@example.com").await;
    let bob = app.signup("bob@example.com").await;
    let id =
        app.scrap_with(&ada, json!({"title": "Shop", "url": site.url("/shop"), "request": "returnData([1])"})).await;
    let shoot = |bearer: String| {
        let request = app.request(Method::POST, &format!("/api/scraps/{id}/banner/screenshot"), Some(&bearer));
        app.send(request)
    };
    let (status, answer) = shoot(ada.token.clone()).await;
    assert_error(status, &answer, StatusCode::UNPROCESSABLE_ENTITY, "VALIDATION");
    assert!(answer["description"].as_str().unwrap().contains("target refused"), "{answer}");
    assert!(site.engines("/shop").is_empty(), "nothing reached the private address");
    // Another organization: 404; an API key: 401.
    let (status, answer) = shoot(bob.token.clone()).await;
    assert_error(status, &answer, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (_, key) = app.create_key(&ada, json!({"name": "ci"})).await;
    let (status, answer) = shoot(key).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{answer}");
    let (_, scrap) = app.get(&format!("/api/scraps/{id}"), &ada.token).await;
    assert_eq!(scrap["banner"], "");
}
