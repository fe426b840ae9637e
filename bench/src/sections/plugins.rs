//! Plugin cost: GetRecord oai_crate (warm) vs oai_didl; a cold oai_crate page of photo-sized
//! JPEGs (about 140 KB) vs warm; identification alone, the Siegfried worker against `fido` by hand.
//! The server runs in this process (the `modoai` library, the binary's code) so that the tool
//! processes it starts can be counted (`Plugins::processes_started`).

use super::Ctx;
use crate::data;
use crate::http::{encode, Http};
use crate::report::{median, Figure};

pub(crate) async fn run(ctx: &Ctx) -> anyhow::Result<Vec<Figure>> {
    let n = ctx.size(100, 10);
    let site = ctx.dir("plugins/site")?;
    data::photos(&site, n, "p")?;
    let toml = data::plugins_toml(
        &ctx.bins.repo,
        &ctx.dir("plugins/conf")?,
        &ctx.work.join("plugins/cache"),
    )?;
    let plugins = modoai::Plugins::load(&toml).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}/", listener.local_addr()?);
    let config = modoai::Config::new(&site, &base)?
        .plugins(plugins.clone())
        .page_size(n);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(modoai::serve(listener, config, async move {
        let _ = stopped.await;
    }));
    let http = Http::new();
    let oai = format!("{base}modoai");
    let page = format!("{oai}?verb=ListRecords&metadataPrefix=oai_crate");
    // OAI requests are answered 503 until the index is built.
    let probe = format!("{oai}?verb=ListIdentifiers&metadataPrefix=oai_dc");
    while http.get(&probe).await?.status != 200 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let cold = http.get(&page).await?;
    anyhow::ensure!(cold.status == 200, "cold page: HTTP {}", cold.status);
    // Counted from the server's start: the ExifTool and Siegfried workers start with it, before the
    // page, and belong to its cost.
    let cold_procs = plugins.processes_started();
    // The warm page and the same page in oai_didl in turns, a pair per sample after a first pair
    // untimed: a page takes milliseconds, so single runs would mostly measure the machine's noise.
    let (mut warm, mut didl) = (Vec::new(), Vec::new());
    let pairs = ctx.size(15, 3).max(ctx.runs);
    let before = plugins.processes_started();
    let didl_page = format!("{oai}?verb=ListRecords&metadataPrefix=oai_didl");
    for i in 0..=pairs {
        let w = http.get(&page).await?.elapsed.as_secs_f64();
        let d = http.get(&didl_page).await?.elapsed.as_secs_f64();
        if i > 0 {
            warm.push(w);
            didl.push(d);
        }
    }
    let warm_procs = (plugins.processes_started() - before) / (pairs + 1);
    let id = encode(&format!("{base}img/p0000.jpg"));
    let latency = |prefix: &'static str| {
        let (http, url) = (
            http.clone(),
            format!("{oai}?verb=GetRecord&metadataPrefix={prefix}&identifier={id}"),
        );
        let samples = ctx.size(30, 5);
        async move {
            let mut v = Vec::new();
            for i in 0..=samples {
                let r = http.get(&url).await?;
                anyhow::ensure!(
                    r.status == 200 && !r.tail.windows(6).any(|w| w == b"error "),
                    "{url}"
                );
                if i > 0 {
                    v.push(r.elapsed.as_secs_f64() * 1e3);
                }
            }
            Ok::<f64, anyhow::Error>(median(&v))
        }
    };
    let by_hand = tools_by_hand(&site.join("img"))?;
    let identification = identification(&site.join("img"))?;
    let crate_ms = latency("oai_crate").await?;
    let didl_ms = latency("oai_didl").await?;
    let _ = stop.send(());
    server.await??;
    Ok(vec![
        Figure::new(
            "plugins",
            "GetRecord oai_crate, warm cache, median latency",
            crate_ms,
            "ms",
        )
        .peer("GetRecord oai_didl, same file", didl_ms),
        Figure::new(
            "plugins",
            format!("ListRecords oai_crate page of {n} JPEGs of 140 KB, cold plugins"),
            cold.elapsed.as_secs_f64(),
            "s",
        )
        .peer("same page, warm cache", median(&warm)),
        Figure::new(
            "plugins",
            "that cold page against its tools run by hand, one batch each, in turn",
            cold.elapsed.as_secs_f64(),
            "s",
        )
        .peer("the tools by hand", by_hand.total)
        .note(format!(
            "the slowest alone: {} {:.2} s",
            by_hand.slowest.0, by_hand.slowest.1
        )),
        Figure::new(
            "plugins",
            format!("ListRecords oai_crate page of {n} JPEGs of 140 KB, warm cache"),
            median(&warm),
            "s",
        )
        .peer("same page in oai_didl", median(&didl))
        .note("cache lookups and embedding over the DIDL's cost"),
        Figure::new(
            "plugins",
            "tool processes started for that page, cold",
            cold_procs as f64,
            "processes",
        )
        .peer("same page, warm cache", warm_procs as f64)
        .note("the ExifTool and Siegfried workers, started with the server, included"),
        Figure::new(
            "plugins",
            format!("identification alone, same {n} JPEGs: a running Siegfried worker"),
            identification.worker,
            "s",
        )
        .peer("fido by hand, same files, same run", identification.fido)
        .note("modoai-siegfried --stdin, its start and signature load not counted"),
    ])
}

/// The default plugins' tools run by hand over the page's files, one batch process each (the
/// built-in md5 as `md5sum`), one after another: the work the cold page does for them.
struct ByHand {
    total: f64,
    slowest: (&'static str, f64),
}

fn tools_by_hand(folder: &std::path::Path) -> anyhow::Result<ByHand> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(folder)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.sort();
    let tools: [(&str, &[&str]); 5] = [
        ("file", &["-E", "-L", "-b"]),
        ("md5sum", &[]),
        ("jhove", &["-h", "xml", "-m", "JPEG-hul"]),
        ("exiftool", &["-X", "-a", "--System:all"]),
        ("modoai-siegfried", &[]),
    ];
    let mut by_hand = ByHand {
        total: 0.0,
        slowest: ("", 0.0),
    };
    for (tool, args) in tools {
        let mut cmd = std::process::Command::new(tool);
        cmd.args(args)
            .args(&files)
            .stderr(std::process::Stdio::null());
        let secs = crate::procs::timed(tool, &mut cmd)?.as_secs_f64();
        by_hand.total += secs;
        if secs > by_hand.slowest.1 {
            by_hand.slowest = (tool, secs);
        }
    }
    Ok(by_hand)
}

/// Identification alone: one batch of the files by a running `modoai-siegfried --stdin` (started
/// and given one file first, as the server's worker is), and `fido -q` by hand on the same files.
struct Identification {
    worker: f64,
    fido: f64,
}

fn identification(folder: &std::path::Path) -> anyhow::Result<Identification> {
    use std::io::{BufRead, Write};
    use std::os::unix::ffi::OsStrExt;
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(folder)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.sort();
    let mut worker = std::process::Command::new("modoai-siegfried")
        .arg("--stdin")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    let mut stdin = worker.stdin.take().expect("piped");
    let mut stdout = std::io::BufReader::new(worker.stdout.take().expect("piped"));
    // One batch: NUL-ended paths and an empty one; answered up to its `{"end":N}` line.
    let mut batch = |files: &[std::path::PathBuf], n: usize| -> anyhow::Result<f64> {
        let t = std::time::Instant::now();
        let mut request = Vec::new();
        for f in files {
            request.extend_from_slice(f.as_os_str().as_bytes());
            request.push(0);
        }
        request.push(0);
        stdin.write_all(&request)?;
        stdin.flush()?;
        let end = format!("{{\"end\":{n}}}");
        let mut line = String::new();
        loop {
            line.clear();
            anyhow::ensure!(stdout.read_line(&mut line)? > 0, "modoai-siegfried ended");
            if line.trim_end() == end {
                return Ok(t.elapsed().as_secs_f64());
            }
        }
    };
    batch(&files[..1], 1)?;
    let worker_secs = batch(&files, 2)?;
    drop(stdin);
    worker.wait()?;
    let mut fido = std::process::Command::new("fido");
    fido.arg("-q")
        .args(&files)
        .stderr(std::process::Stdio::null());
    let fido = crate::procs::timed("fido", &mut fido)?.as_secs_f64();
    Ok(Identification {
        worker: worker_secs,
        fido,
    })
}
