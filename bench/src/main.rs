//! `modoai-bench`, run by `scripts/bench`: measures modoai, its harvester and its explorer side by
//! side with their peers (nginx, Sickle, gzip, pywb) on data it builds itself, and prints a table.

mod data;
mod http;
mod procs;
mod report;
mod sections;

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use clap::Parser;

use procs::Bins;
use report::Figure;
use sections::Ctx;

const SECTIONS: [&str; 10] = [
    "throughput",
    "plugins",
    "visitors",
    "scale",
    "store",
    "harvester",
    "memory",
    "explorer",
    "foreign",
    "shards",
];

/// Measures modoai against nginx, Sickle and gzip on this machine.
#[derive(Debug, Parser)]
#[command(name = "modoai-bench")]
struct Args {
    /// Tiny sizes and one run per figure: a smoke test of the benchmark itself.
    #[arg(long)]
    quick: bool,
    /// Also write the figures as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Run only these sections (comma-separated): throughput, plugins, visitors, scale,
    /// store, harvester, memory, explorer, foreign, shards.
    #[arg(long, value_delimiter = ',', value_name = "SECTIONS")]
    only: Vec<String>,
    /// Measured runs per figure after one warm-up run. Default: 3, or 1 with --quick.
    #[arg(long)]
    runs: Option<usize>,
    /// The folder of the modoai, modoai-harvester and modoai-explorer binaries.
    #[arg(long, value_name = "DIR")]
    bin_dir: PathBuf,
    /// Where the data is built (a temporary folder inside it, removed at the end).
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn run(args: Args) -> anyhow::Result<()> {
    for s in &args.only {
        anyhow::ensure!(
            SECTIONS.contains(&s.as_str()),
            "unknown section {s:?}; sections: {}",
            SECTIONS.join(", ")
        );
    }
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let work = match &args.work_dir {
        Some(d) => tempfile::tempdir_in(d)?,
        None => tempfile::tempdir()?,
    };
    let ctx = Ctx {
        bins: Bins {
            dir: args.bin_dir.clone(),
            repo,
        },
        quick: args.quick,
        runs: args.runs.unwrap_or(if args.quick { 1 } else { 3 }),
        work: work.path().to_owned(),
    };
    let context = context(&args, &ctx);
    let header = format!(
        "# modoai bench {} | {} | {} cores | {} | binaries: {} | {} measured run(s) per figure after a warm-up, medians",
        context["date"].as_str().unwrap_or(""),
        context["cpu"].as_str().unwrap_or(""),
        context["cores"],
        context["mode"].as_str().unwrap_or(""),
        context["binaries"].as_str().unwrap_or(""),
        ctx.runs
    );
    eprintln!("{header}");
    let mut figures: Vec<Figure> = Vec::new();
    for s in SECTIONS {
        if !args.only.is_empty() && !args.only.iter().any(|o| o == s) {
            continue;
        }
        eprintln!("bench: {s} …");
        let started = std::time::Instant::now();
        let got = match s {
            "throughput" => sections::throughput::run(&ctx).await,
            "plugins" => sections::plugins::run(&ctx).await,
            "visitors" => sections::visitors::run(&ctx).await,
            "scale" => sections::scale::run(&ctx).await,
            "store" => sections::store::run(&ctx).await,
            "harvester" => sections::harvester::run(&ctx).await,
            "explorer" => sections::explorer::run(&ctx).await,
            "foreign" => sections::foreign::run(&ctx).await,
            "shards" => sections::shards::run(&ctx).await,
            _ => sections::memory::run(&ctx).await,
        };
        let got = got.map_err(|e| e.context(format!("section {s}")))?;
        eprintln!(
            "bench: {s} done in {:.0} s",
            started.elapsed().as_secs_f64()
        );
        for f in &got {
            eprintln!(
                "  {}: {:.3} {} ({} {:.3})",
                f.name, f.ours, f.unit, f.peer, f.peer_value
            );
        }
        figures.extend(got);
        let _ = std::fs::remove_dir_all(ctx.work.join(s));
    }
    print!("{}", report::table(&header, &figures));
    if let Some(path) = &args.json {
        std::fs::write(
            path,
            serde_json::to_string_pretty(&report::to_json(context, &figures))?,
        )?;
    }
    Ok(())
}

fn context(args: &Args, ctx: &Ctx) -> serde_json::Value {
    let date = Command::new("date")
        .args(["-u", "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .and_then(|r| r.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_default();
    let cores = std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(0);
    serde_json::json!({
        "date": date, "cpu": cpu, "cores": cores,
        "mode": if args.quick { "quick" } else { "full" },
        "binaries": args.bin_dir.display().to_string(), "runs": ctx.runs,
    })
}
