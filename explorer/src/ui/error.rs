//! Errors as pages: the door's layer makes an answer that is an [`AppError`] a page that says
//! what happened and what to do, with the error's status and headers (`Retry-After` on 429 and
//! 503, `WWW-Authenticate` on 401, the RateLimit fields).

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use maud::html;

use super::layout;
use crate::web::AppError;

/// `response` as a page when it is an error; any other answer as it is.
pub(super) async fn page(response: Response) -> Response {
    let Some(e) = response.extensions().get::<AppError>() else {
        return response;
    };
    let (heading, help) = explain(e.status());
    let retry = e.retry_after();
    let body = layout::page(
        heading,
        "",
        html! {
            section.error data-status=(e.status().as_u16()) {
                h1 { (heading) }
                p.message { "What is wrong: " (e) "." }
                p.help { (help) }
                @if let Some(s) = retry { p.retry { "Try again in " (s) " s." } }
                p { a href="/" { "Back to the front page" } }
            }
        },
    );
    let (mut parts, _) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    Response::from_parts(parts, Body::from(body.into_string()))
}

/// The heading and the advice of a status.
fn explain(status: StatusCode) -> (&'static str, &'static str) {
    match status.as_u16() {
        400 => ("This search cannot be run", "Change what the message names and search again. Words are searched as written; quote a phrase (\"old maps\"), prefix a word with - to leave it out, title:word searches titles."),
        401 => ("A key is needed", "This server shows its pages only to key holders. Ask the archive's operator for a key."),
        404 => ("Not found", "The link may be old, or the capture outside what you may see."),
        429 => ("Too many requests", "Your key's quota or rate is spent for now."),
        503 => ("The archive is being indexed", "Its index is being built or rebuilt; the page will work once it is ready."),
        _ => ("This page cannot be shown", "Try again shortly."),
    }
}

#[cfg(test)]
mod tests {
    use axum::response::IntoResponse;

    use super::*;

    #[tokio::test]
    async fn an_error_page_keeps_the_status_and_headers_of_its_error() {
        let r =
            page(AppError::unavailable("the index of a is being built", 5).into_response()).await;
        assert_eq!(r.status(), 503);
        assert_eq!(r.headers()[header::RETRY_AFTER], "5");
        assert_eq!(
            r.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        let body = axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap();
        let body = String::from_utf8(body.to_vec()).unwrap();
        assert!(
            body.contains("What is wrong: the index of a is being built."),
            "{body}"
        );
        let r =
            page(AppError::BadRequest("q=\"<b>\": does not parse".into()).into_response()).await;
        let body = axum::body::to_bytes(r.into_body(), 1 << 20).await.unwrap();
        let body = String::from_utf8(body.to_vec()).unwrap();
        assert!(body.contains("&lt;b&gt;"), "escaped: {body}");
        assert!(
            body.contains("q=&quot;"),
            "a parameter keeps its name as written: {body}"
        );
    }
}
