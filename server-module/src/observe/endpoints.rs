//! The routes the standalone server answers itself: `/healthz` and the metrics route.

use bytes::Bytes;
use http::header::{ALLOW, CONTENT_TYPE};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::Full;

use super::observer::Observer;

/// The health route.
pub(crate) const HEALTH: &str = "/healthz";

/// The media type of OpenMetrics text, which Prometheus asks for and reads.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The response of an endpoint the request names, or `None` for every other path.
/// `metrics_route` is where the metrics are served on this listener, if at all.
pub(crate) fn answer<B>(
    observer: &Observer,
    metrics_route: Option<&str>,
    req: &Request<B>,
) -> Option<Response<Full<Bytes>>> {
    let path = req.uri().path();
    let metrics = observer
        .metrics
        .as_ref()
        .filter(|_| metrics_route == Some(path));
    if path != HEALTH && metrics.is_none() {
        return None;
    }
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        let mut res = text(StatusCode::METHOD_NOT_ALLOWED, "use GET\n".to_owned());
        res.headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return Some(res);
    }
    Some(match metrics {
        Some(m) => {
            let mut res = text(StatusCode::OK, m.encode());
            res.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static(OPENMETRICS));
            res
        }
        None if observer.health.is_shutting_down() => text(
            StatusCode::SERVICE_UNAVAILABLE,
            "shutting down\n".to_owned(),
        ),
        None => text(StatusCode::OK, "ok\n".to_owned()),
    })
}

fn text(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut res = Response::new(Full::new(Bytes::from(body)));
    *res.status_mut() = status;
    res.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=UTF-8"),
    );
    res.headers_mut().insert(
        http::header::CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    );
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::observer::Health;

    fn observer() -> Observer {
        Observer {
            log: None,
            metrics: None,
            metrics_route: None,
            health: Health::default(),
            policy: crate::Policy::default(),
        }
    }

    fn get(path: &str) -> Request<()> {
        Request::get(path).body(()).unwrap()
    }

    #[test]
    fn healthz_is_ok_until_shutdown_begins() {
        let o = observer();
        let res = answer(&o, None, &get("/healthz")).unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        o.health.shutting_down();
        let res = answer(&o, None, &get("/healthz")).unwrap();
        assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(answer(&o, None, &get("/about.html")).is_none());
    }

    #[test]
    fn metrics_only_where_they_are_enabled() {
        let o = observer();
        assert!(
            answer(&o, Some("/metrics"), &get("/metrics")).is_none(),
            "no metrics configured"
        );
        let post = Request::post("/healthz").body(()).unwrap();
        let res = answer(&o, None, &post).unwrap();
        assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED);
    }
}
