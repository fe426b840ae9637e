//! Explorer with `--tools`: a synthetic archive indexed from an empty cache with identification
//! alone, then again from scratch (another empty cache) with the provider's tools as well (JHOVE
//! for HTML, text and XML, md5 for all), in the same run: what running the tool table on every
//! capture without a CRATE costs.

use std::time::Duration;

use modoai_explorer::synthetic::{write, Spec};

use super::{index_in, Ctx};
use crate::report::Figure;

/// JHOVE by MIME type as `plugins.toml` configures it for the synthetic archive's types without
/// a CRATE (its JPEGs have one), and md5 for everything.
const TOOLS: &str = r#"
[settings]
max-processes = 2

[[plugin]]
label = "jhove"
mime = ["text/html", "application/xhtml+xml"]
command = ["jhove", "-h", "xml", "-m", "HTML-hul", "{paths}"]
version-command = ["jhove", "-v"]
runner = "jhove-batch"
output = "xml"
max-input-bytes = 2097152

[[plugin]]
label = "jhove"
mime = ["application/xml", "text/xml"]
command = ["jhove", "-h", "xml", "-m", "XML-hul", "{paths}"]
version-command = ["jhove", "-v"]
runner = "jhove-batch"
output = "xml"

[[plugin]]
label = "jhove"
mime = "text/plain"
command = ["jhove", "-h", "xml", "-m", "UTF8-hul", "{paths}"]
version-command = ["jhove", "-v"]
runner = "jhove-batch"
output = "xml"

[[plugin]]
label = "md5"
mime = "*/*"
builtin = "md5"
"#;

pub(super) fn run(ctx: &Ctx) -> anyhow::Result<Figure> {
    let n = ctx.size(20_000u64, 300);
    let archive = ctx.dir("explorer/tools-archive")?;
    let spec = Spec {
        captures: n,
        hot: 0,
        first: 0,
        text: (200, 3000),
        seed: 3,
    };
    tokio::task::block_in_place(|| write(&archive, &spec))?;
    let alone = index_in(ctx, &archive, "explorer/tools-state-identify", &[])?.took;
    std::fs::remove_dir_all(archive.join("explorer-index"))?;
    let table = ctx.dir("explorer/tools-table")?.join("plugins.toml");
    std::fs::write(&table, TOOLS)?;
    let flags = ["--tools", table.to_str().expect("a UTF-8 path")];
    let tooled = index_in(ctx, &archive, "explorer/tools-state-tools", &flags)?;
    let (with, peak) = (tooled.took, tooled.peak);
    Ok(figure(n, alone, with, peak))
}

fn figure(n: u64, alone: Duration, with: Duration, peak: f64) -> Figure {
    Figure::new(
        "explorer",
        format!("index build of {n} captures with --tools (JHOVE, md5), empty cache"),
        n as f64 / with.as_secs_f64(),
        "captures/s",
    )
    .peer(
        "identification only, same archive",
        n as f64 / alone.as_secs_f64(),
    )
    .note(format!(
        "{:.1} s against {:.1} s; indexer peak RSS {peak:.0} MiB",
        with.as_secs_f64(),
        alone.as_secs_f64()
    ))
}
