//! The web client's pages (src/routes/play.rs): served with their content types and caching
//! headers, unknown files and every spelling of `..` answered 404 problem+json.

use reqwest::StatusCode;
use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE, ETAG, IF_NONE_MATCH, LOCATION};
use std::io::{Read, Write};

use crate::helpers::spawn_app;

#[tokio::test]
async fn the_client_pages_are_served_with_their_types() {
    let app = spawn_app().await;
    let get = |path: &str| app.client.get(format!("{}{path}", app.address)).send();

    let page = get("/play/").await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert_eq!(page.headers()[CONTENT_TYPE], "text/html; charset=utf-8");
    assert_eq!(page.headers()[CACHE_CONTROL], "no-cache");
    let html = page.text().await.unwrap();
    assert!(
        html.contains("<script type=\"module\" src=\"app.js\">"),
        "{html}"
    );

    for (file, ty) in [
        ("app.js", "text/javascript; charset=utf-8"),
        ("api.js", "text/javascript; charset=utf-8"),
        ("cards.js", "text/javascript; charset=utf-8"),
        ("actions.js", "text/javascript; charset=utf-8"),
        ("style.css", "text/css; charset=utf-8"),
    ] {
        let res = get(&format!("/play/{file}")).await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "{file}");
        assert_eq!(res.headers()[CONTENT_TYPE], ty, "{file}");
    }

    // `/play` sends the browser to the directory, so relative links resolve under it.
    let bare = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(format!("{}/play", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(bare.headers()[LOCATION], "/play/");

    // A browser revalidates its copy: the same file answers 304 without a body.
    let first = get("/play/app.js").await.unwrap();
    let etag = first.headers()[ETAG].clone();
    let again = app
        .client
        .get(format!("{}/play/app.js", app.address))
        .header(IF_NONE_MATCH, etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(again.text().await.unwrap().is_empty());

    // The pages are GET only: another method answers 405 naming GET.
    let post = app
        .client
        .post(format!("{}/play/app.js", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(post.headers()["allow"], "GET");
}

#[tokio::test]
async fn unknown_files_and_parent_paths_are_not_found() {
    let app = spawn_app().await;
    let res = app
        .client
        .get(format!("{}/play/nothing.js", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    assert_eq!(res.headers()[CONTENT_TYPE], "application/problem+json");
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["code"], "not_found");

    // Sent as raw bytes: an HTTP client library would resolve the dots before sending.
    let port = app.address.rsplit(':').next().unwrap();
    for path in [
        "/play/../Cargo.toml",
        "/play/%2e%2e/Cargo.toml",
        "/play/..%2fCargo.toml",
        "/play/%2e%2e%2f%2e%2e%2fCargo.toml",
        "/play/..%5cCargo.toml",
        "/play/%2e%2e%2fsrc%2fmain.rs",
        "/play/.%2e/web/app.js",
    ] {
        let mut tcp = std::net::TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        tcp.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        tcp.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 404"), "{path}: {answer}");
        assert!(
            answer.contains("application/problem+json"),
            "{path}: {answer}"
        );
        assert!(!answer.contains("[package]"), "{path} escaped: {answer}");
        assert!(!answer.contains("fn main"), "{path} escaped: {answer}");
    }
}
