//! [`SiteService`] and its [`Service`] impl.

use std::convert::Infallible;
use std::future::Future;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::{ALLOW, CONTENT_TYPE, ETAG, IF_NONE_MATCH, LAST_MODIFIED};
use http::{HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use rustix::fs::{Mode, OFlags, ResolveFlags};
use tower::{Service, ServiceExt};
use tower_http::services::ServeFile;

use super::body::SiteBody;
use crate::fetch::BoxError;
use crate::index::{is_visible, regular_file_meta};
use crate::own::OwnFiles;

/// Bytes per read of a file being sent.
const READ_CHUNK: usize = 256 * 1024;

/// A static file server for one document root. Cheap to clone.
#[derive(Clone, Debug)]
pub struct SiteService {
    root: PathBuf,
    canonical: PathBuf,
    /// The root opened once (`O_PATH`), for [`Self::without_links`].
    root_fd: Option<Arc<OwnedFd>>,
    own: OwnFiles,
}

impl SiteService {
    /// Serves the files under `root`.
    pub fn new(root: impl Into<PathBuf>) -> std::io::Result<Self> {
        let root = root.into();
        let canonical = std::fs::canonicalize(&root)?;
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let root_fd = rustix::fs::open(&canonical, flags, Mode::empty())
            .ok()
            .map(Arc::new);
        Ok(SiteService {
            root,
            canonical,
            root_fd,
            own: OwnFiles::default(),
        })
    }

    /// Never serves these paths (the server's own files, [`Config::own_files`]): they answer 404
    /// like a file that does not exist. Defaults to none.
    ///
    /// [`Config::own_files`]: crate::Config::own_files
    pub fn hiding(mut self, own: OwnFiles) -> Self {
        self.own = own;
        self
    }

    /// The file a URL path names, if the site serves it.
    fn resolve(&self, url_path: &str) -> Option<Found> {
        let rel = decode_path(url_path)?;
        if let Some(found) = self.without_links(&rel) {
            return found;
        }
        let full = self.root.join(rel);
        // Any folder on the way may be a symlink that leaves the root.
        let real = std::fs::canonicalize(&full).ok()?;
        if !real.strip_prefix(&self.canonical).is_ok_and(is_visible) {
            return None;
        }
        let (file, real) = if real.is_dir() {
            (full.join("index.html"), real.join("index.html"))
        } else {
            (full, real)
        };
        if self.own.find(&real).is_some() {
            return None;
        }
        let meta = regular_file_meta(&file, &self.canonical)?;
        Some(Found {
            path: file,
            meta,
            opened: None,
        })
    }

    /// The regular file at `rel` when no component of its path is a symlink, found and opened in
    /// one system call: `openat2` below the root with `RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH`,
    /// where `realpath` reads each component as a possible link (a tenth of a small GET's CPU),
    /// and its metadata taken from the opened file, so they describe the bytes read. Opened as
    /// nginx opens files, `O_NONBLOCK` so that a FIFO cannot hold the worker, and checked to be a
    /// regular file before anything is read. `None` when that cannot say (a symlink on the way,
    /// a folder, a kernel without `openat2`): the caller resolves the path in full then.
    fn without_links(&self, rel: &Path) -> Option<Option<Found>> {
        let root = self.root_fd.as_ref()?;
        if rel.as_os_str().is_empty() {
            return None;
        }
        let how = ResolveFlags::NO_SYMLINKS | ResolveFlags::BENEATH;
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = rustix::fs::openat2(root, rel, flags, Mode::empty(), how).ok()?;
        let opened = std::fs::File::from(fd);
        let meta = opened.metadata().ok()?;
        if !meta.is_file() {
            return None;
        }
        if self.own.find(&self.canonical.join(rel)).is_some() {
            return Some(None);
        }
        Some(Some(Found {
            path: self.root.join(rel),
            meta,
            opened: Some(opened),
        }))
    }
}

/// A file the site serves.
struct Found {
    path: PathBuf,
    meta: std::fs::Metadata,
    /// The file already open, when finding it opened it.
    opened: Option<std::fs::File>,
}

impl Found {
    /// The file, open for reading (non-blocking, so that a FIFO swapped in since it was found
    /// cannot hold the worker); the one finding it opened, if any, is handed over.
    fn open(&mut self) -> Option<std::fs::File> {
        use std::os::unix::fs::OpenOptionsExt;
        match self.opened.take() {
            Some(f) => Some(f),
            None => std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(OFlags::NONBLOCK.bits() as i32)
                .open(&self.path)
                .ok(),
        }
    }
}

/// The relative path a URL path names: percent-decoded once, every segment a visible name.
/// `..`, dot-names, NUL, backslashes and empty segments (but a trailing `/`) are refused.
fn decode_path(url_path: &str) -> Option<PathBuf> {
    let bytes: Vec<u8> =
        percent_encoding::percent_decode_str(url_path.strip_prefix('/')?).collect();
    if bytes.contains(&0) || bytes.contains(&b'\\') {
        return None;
    }
    let trimmed = bytes.strip_suffix(b"/").unwrap_or(&bytes);
    let rel = PathBuf::from(std::ffi::OsStr::from_bytes(trimmed));
    let empty_segment = trimmed.split(|&b| b == b'/').any(<[u8]>::is_empty);
    (trimmed.is_empty() || (!empty_segment && is_visible(&rel))).then_some(rel)
}

/// A strong validator from the file's mtime (with nanoseconds) and size, nginx-style.
fn etag(meta: &std::fs::Metadata) -> String {
    format!(
        "\"{:x}.{:x}-{:x}\"",
        meta.mtime(),
        meta.mtime_nsec(),
        meta.len()
    )
}

fn status(code: StatusCode) -> Response<SiteBody> {
    let text = code.canonical_reason().unwrap_or("error");
    let mut res = Response::new(
        Full::new(Bytes::from(format!("{text}\n")))
            .map_err(|e| match e {})
            .boxed_unsync(),
    );
    *res.status_mut() = code;
    res.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=UTF-8"),
    );
    res
}

impl<B: Send + 'static> Service<Request<B>> for SiteService {
    type Response = Response<SiteBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<SiteBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.serve(req).await) })
    }
}

impl SiteService {
    async fn serve<B: Send + 'static>(self, req: Request<B>) -> Response<SiteBody> {
        if !matches!(*req.method(), Method::GET | Method::HEAD) {
            let mut res = status(StatusCode::METHOD_NOT_ALLOWED);
            res.headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
            return res;
        }
        // Resolved, checked and (for a small file) read right here on the worker: for files in
        // the page cache these are a few system calls of microseconds each, while a hop to the
        // blocking pool and back costs two thread wake-ups, most of a small GET's latency on a
        // busy machine. Large bodies are read on the blocking pool ([`super::stream`]).
        let Some(mut found) = self.resolve(req.uri().path()) else {
            return status(StatusCode::NOT_FOUND);
        };
        let mime = crate::mime::detect(&found.path);
        let etag = etag(&found.meta);
        let not_modified = req
            .headers()
            .get(IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(',').any(
                    |t| matches!(t.trim().trim_start_matches("W/"), t if t == etag || t == "*"),
                )
            });
        if not_modified {
            let mut res = status(StatusCode::NOT_MODIFIED);
            *res.body_mut() = Full::new(Bytes::new())
                .map_err(|e| match e {})
                .boxed_unsync();
            res.headers_mut().remove(CONTENT_TYPE);
            insert(&mut res, ETAG, &etag);
            if let Ok(mtime) = found.meta.modified() {
                insert(&mut res, LAST_MODIFIED, &httpdate::fmt_http_date(mtime));
            }
            return res;
        }
        if super::small::is_plain(req.method(), req.headers()) {
            if let Some(res) = found
                .open()
                .and_then(|opened| super::small::answer(opened, &found.meta, &mime, &etag))
            {
                return res;
            }
        }
        serve_file(&found.path, &mime, &etag, req).await
    }
}

async fn serve_file<B: Send + 'static>(
    file: &Path,
    mime: &str,
    etag: &str,
    req: Request<B>,
) -> Response<SiteBody> {
    let mime_value =
        HeaderValue::from_str(mime).unwrap_or(HeaderValue::from_static(crate::mime::OCTET_STREAM));
    let req = req.map(|_| http_body_util::Empty::<Bytes>::new());
    let Ok(res) = ServeFile::new_with_mime(
        file,
        &mime_value
            .to_str()
            .unwrap_or_default()
            .parse()
            .unwrap_or(mime_guess::mime::APPLICATION_OCTET_STREAM),
    )
    // Large reads: each read is a hop to a blocking thread (tokio's files), and oai_didl encodes
    // whole frames at once.
    .with_buf_chunk_size(READ_CHUNK)
    .oneshot(req)
    .await;
    let mut res = res.map(|b| b.map_err(BoxError::from).boxed_unsync());
    if res.status().is_success() {
        insert(&mut res, ETAG, etag);
        res.headers_mut().insert(CONTENT_TYPE, mime_value);
    }
    res
}

fn insert(res: &mut Response<SiteBody>, name: http::HeaderName, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        res.headers_mut().insert(name, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_paths() {
        for bad in [
            "/../etc/passwd",
            "/a/../../x",
            "/%2e%2e/x",
            "/a%2f..%2f..%2fx",
            "/.git/config",
            "/a%00b",
            "/a%5c..%5cb",
            "/a//b",
            "relative",
        ] {
            assert!(decode_path(bad).is_none(), "{bad}");
        }
        assert_eq!(
            decode_path("/a%20b/c.txt"),
            Some(PathBuf::from("a b/c.txt"))
        );
        assert_eq!(decode_path("/"), Some(PathBuf::new()));
        assert_eq!(decode_path("/dir/"), Some(PathBuf::from("dir")));
    }

    #[test]
    fn paths_without_links_take_one_call_and_the_others_the_full_resolution() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/plain.txt"), "plain").unwrap();
        std::fs::write(root.join("plugins.toml"), "secret").unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("link")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("x.txt"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        let mut own = OwnFiles::default();
        own.add(crate::own::OwnKind::Plugins, &root.join("plugins.toml"));
        let site = SiteService::new(&root).unwrap().hiding(own);
        let direct = site.without_links(Path::new("a/b/plain.txt"));
        let found = direct.flatten().expect("found in one call");
        assert_eq!(
            (&found.path, found.meta.len()),
            (&root.join("a/b/plain.txt"), 5)
        );
        let mut text = String::new();
        std::io::Read::read_to_string(&mut found.opened.expect("and opened"), &mut text).unwrap();
        assert_eq!(text, "plain");
        assert!(
            matches!(site.without_links(Path::new("plugins.toml")), Some(None)),
            "an own file is refused at once"
        );
        // A FIFO is opened without waiting for a writer, and not served from here.
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root.join("a/fifo"),
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        for full in [
            "link/b/plain.txt",
            "out/x.txt",
            "a/b",
            "a/missing",
            "a/fifo",
        ] {
            assert!(site.without_links(Path::new(full)).is_none(), "{full}");
        }
        // Through the full resolution: a link inside the root is followed, one out is not.
        assert!(site.resolve("/link/b/plain.txt").is_some());
        assert!(site.resolve("/out/x.txt").is_none());
        assert!(site.resolve("/plugins.toml").is_none());
        assert!(site.resolve("/a/b/plain.txt").is_some());
        assert!(
            site.resolve("/a/fifo").is_none(),
            "only regular files are served"
        );
    }
}
