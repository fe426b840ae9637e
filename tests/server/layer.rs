//! The Layer in front of a site service that is not modoai's own: the site decides what is a
//! record, under which type, with which headers; everything else passes through untouched.

use std::convert::Infallible;
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use integration_tests::{http_headers, texts, TestSite};
use modoai::{Config, OaiPmhLayer, RequestBody};
use tower::util::BoxCloneService;
use tower::{Layer, Service, ServiceExt};
use tower_http::services::ServeDir;

type Body = http_body_util::combinators::UnsyncBoxBody<Bytes, modoai::BoxError>;

/// A site that hides /private/, types `.dat` files itself and adds a header of its own.
fn site_service(
    root: std::path::PathBuf,
) -> BoxCloneService<Request<RequestBody>, Response<Body>, Infallible> {
    BoxCloneService::new(tower::service_fn(move |req: Request<RequestBody>| {
        let fut: std::pin::Pin<
            Box<dyn std::future::Future<Output = Result<Response<Body>, Infallible>> + Send>,
        > = Box::pin(serve_site(root.clone(), req));
        fut
    }))
}

async fn serve_site(
    root: std::path::PathBuf,
    req: Request<RequestBody>,
) -> Result<Response<Body>, Infallible> {
    if req.uri().path().starts_with("/private/") {
        let mut res = Response::new(
            Full::new(Bytes::from_static(b"forbidden"))
                .map_err(|e| match e {})
                .boxed_unsync(),
        );
        *res.status_mut() = StatusCode::FORBIDDEN;
        return Ok(res);
    }
    let dat = req.uri().path().ends_with(".dat");
    let req = req.map(|_| http_body_util::Empty::<Bytes>::new());
    let res = ServeDir::new(root).oneshot(req).await.unwrap();
    let mut res = res.map(|b| {
        b.map_err(|e| Box::new(e) as modoai::BoxError)
            .boxed_unsync()
    });
    if dat {
        res.headers_mut()
            .insert("content-type", "application/x-site-data".parse().unwrap());
    }
    res.headers_mut().insert("x-site", "yes".parse().unwrap());
    Ok(res)
}

async fn call<S>(svc: &mut S, uri: &str) -> (StatusCode, http::HeaderMap, Bytes)
where
    S: Service<
        Request<RequestBody>,
        Response = Response<modoai::ResponseBody<Body>>,
        Error = Infallible,
    >,
{
    let req = Request::get(uri)
        .header("host", "site.example")
        .body(RequestBody::default())
        .unwrap();
    let res = svc.ready().await.unwrap().call(req).await.unwrap();
    let (parts, body) = res.into_parts();
    (
        parts.status,
        parts.headers,
        body.collect().await.unwrap().to_bytes(),
    )
}

#[tokio::test]
async fn the_inner_service_decides() {
    let site = TestSite::empty();
    site.write("public/a.txt", b"public", None);
    site.write("public/data.dat", b"opaque", None);
    site.write("private/secret.txt", b"secret", None);
    let config = Config::new(site.path(), "http://site.example/").unwrap();
    let mut svc = OaiPmhLayer::new(config).layer(site_service(site.path().to_path_buf()));
    tokio::time::timeout(Duration::from_secs(10), svc.ready())
        .await
        .expect("index ready");

    let (status, headers, body) = call(&mut svc, "/public/a.txt").await;
    assert_eq!(
        (status, body.as_ref()),
        (StatusCode::OK, &b"public"[..]),
        "other requests pass through"
    );
    assert_eq!(headers["x-site"], "yes");
    let (status, _, _) = call(&mut svc, "/private/secret.txt").await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let (_, headers, body) = call(
        &mut svc,
        "/modoai?verb=ListIdentifiers&metadataPrefix=oai_dc",
    )
    .await;
    assert_eq!(headers["content-type"], "text/xml; charset=UTF-8");
    let mut ids = texts(&body, "identifier");
    ids.sort();
    assert_eq!(
        ids,
        [
            "http://site.example/public/a.txt",
            "http://site.example/public/data.dat"
        ],
        "a refused file is no record"
    );
    let (_, _, body) = call(&mut svc, "/modoai?verb=GetRecord&metadataPrefix=oai_didl&identifier=http://site.example/public/data.dat").await;
    assert!(
        texts(&body, "setSpec").contains(&"mime:application:x-site-data".to_owned()),
        "the site's own type"
    );
    let headers = http_headers(&body);
    assert!(
        headers.contains(&("x-site".to_owned(), "yes".to_owned())),
        "the site's own headers: {headers:?}"
    );
    assert!(headers.contains(&(
        "content-type".to_owned(),
        "application/x-site-data".to_owned()
    )));
    integration_tests::xsd_validate(&body).unwrap();
}

#[tokio::test]
async fn a_custom_route_leaves_the_default_one_to_the_site() {
    let site = TestSite::empty();
    site.write("modoai", b"a file named like the route", None);
    let config = Config::new(site.path(), "http://site.example/")
        .unwrap()
        .route("/oai")
        .unwrap();
    assert_eq!(config.oai_base_url(), "http://site.example/oai");
    let mut svc = OaiPmhLayer::new(config).layer(site_service(site.path().to_path_buf()));
    svc.ready().await;
    let (_, _, body) = call(&mut svc, "/modoai").await;
    assert_eq!(body.as_ref(), b"a file named like the route");
    let (_, _, body) = call(&mut svc, "/oai?verb=Identify").await;
    assert_eq!(texts(&body, "baseURL"), ["http://site.example/oai"]);
}
